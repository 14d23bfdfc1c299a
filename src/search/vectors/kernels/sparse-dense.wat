(module
  (memory (import "env" "memory") 1)
  ;; multiply(starts, cols, values, rows, m, width, out): out (rows × width, f32) += S M, where S is a sparse matrix
  ;; in compressed rows (row r's entries are starts[r] .. starts[r + 1] of cols (i32) and values (f32)) and M a dense
  ;; matrix (f32, `width` a multiple of 4) whose row c is entry col c's. Byte offsets into memory; out starts zeroed.
  (func (export "multiply") (param $starts i32) (param $cols i32) (param $values i32) (param $rows i32)
    (param $m i32) (param $width i32) (param $out i32)
    (local $r i32) (local $q i32) (local $qEnd i32) (local $j i32) (local $stride i32) (local $src i32)
    (local $v v128)
    (local.set $stride (i32.shl (local.get $width) (i32.const 2)))
    (block $rowsDone
      (loop $row
        (br_if $rowsDone (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $q (i32.load (i32.add (local.get $starts) (i32.shl (local.get $r) (i32.const 2)))))
        (local.set $qEnd (i32.load offset=4 (i32.add (local.get $starts) (i32.shl (local.get $r) (i32.const 2)))))
        (block $entriesDone
          (loop $entry
            (br_if $entriesDone (i32.ge_u (local.get $q) (local.get $qEnd)))
            (local.set $v (f32x4.splat (f32.load (i32.add (local.get $values) (i32.shl (local.get $q) (i32.const 2))))))
            (local.set $src
              (i32.add (local.get $m)
                (i32.mul (i32.load (i32.add (local.get $cols) (i32.shl (local.get $q) (i32.const 2)))) (local.get $stride))))
            (local.set $j (i32.const 0))
            (loop $col
              (v128.store (i32.add (local.get $out) (local.get $j))
                (f32x4.add
                  (v128.load (i32.add (local.get $out) (local.get $j)))
                  (f32x4.mul (local.get $v) (v128.load (i32.add (local.get $src) (local.get $j))))))
              (local.set $j (i32.add (local.get $j) (i32.const 16)))
              (br_if $col (i32.lt_u (local.get $j) (local.get $stride))))
            (local.set $q (i32.add (local.get $q) (i32.const 1)))
            (br $entry)))
        (local.set $out (i32.add (local.get $out) (local.get $stride)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $row))))
)
