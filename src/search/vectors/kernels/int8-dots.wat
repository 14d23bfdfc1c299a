(module
  (memory (import "env" "memory") 1)
  ;; dots(q, data, rows, k, out): for each of `rows` int8 rows of `k` bytes at `data` (k a multiple of 16), the dot
  ;; product with the int16 query at `q`, as an i32 at out[row].
  (func (export "dots") (param $q i32) (param $data i32) (param $rows i32) (param $k i32) (param $out i32)
    (local $end i32) (local $j i32) (local $acc v128) (local $v v128)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $rows) (i32.const 2))))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $col
          (local.set $v (v128.load (i32.add (local.get $data) (local.get $j))))
          (local.set $acc
            (i32x4.add (local.get $acc)
              (i32x4.dot_i16x8_s
                (i16x8.extend_low_i8x16_s (local.get $v))
                (v128.load (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 1)))))))
          (local.set $acc
            (i32x4.add (local.get $acc)
              (i32x4.dot_i16x8_s
                (i16x8.extend_high_i8x16_s (local.get $v))
                (v128.load offset=16 (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 1)))))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $col (i32.lt_u (local.get $j) (local.get $k))))
        (i32.store (local.get $out)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $data (i32.add (local.get $data) (local.get $k)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $row))))
)
