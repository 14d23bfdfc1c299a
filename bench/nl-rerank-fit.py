# EXPERIMENT (issue 32, round four): a linear reranker over bench/nl-features.ts rows, fitted by coordinate ascent on
# NDCG@10 of the tuned sets (leave-one-set-out printed), then run once on the held-out ones. Input: /tmp/exp/feat.jsonl
# (FEATURES=/tmp/exp/feat.jsonl tsx bench/search-nl.ts). Usage: python3 bench/nl-rerank-fit.py [feature ids] [--held]
import json, sys, math, random
import numpy as np
names=['bm25','hybrid','hybridModel','bm25Self','bm25Translation','cosine','cosineModel','coverage','proximity','fileCoverage','symbolOverlap','logLines','rankBm25','rankHybrid']
Q=[]
for line in open('/tmp/exp/feat.jsonl'):
    d=json.loads(line)
    paths=[r['path'] for r in d['rows']]
    uniq=sorted(set(paths)); idx={p:i for i,p in enumerate(uniq)}
    X=np.array([r['f'] for r in d['rows']],dtype=float) if d['rows'] else np.zeros((0,len(names)))
    fid=np.array([idx[p] for p in paths],dtype=int)
    target=idx.get(d['file'],-1)
    Q.append(dict(set=d['set'],split=d['split'],lang=d['language'],X=X,fid=fid,nf=len(uniq),target=target))
def ndcg(q,w):
    if q['target']<0 or len(q['X'])==0: return 0.0
    s=q['X']@w
    fs=np.full(q['nf'],-1e9); np.maximum.at(fs,q['fid'],s)
    t=fs[q['target']]
    rank=int((fs>t).sum())  # ties: optimistic-ish; use > only
    return 1/math.log2(rank+2) if rank<10 else 0.0
def mean(qs,w): return sum(ndcg(q,w) for q in qs)/max(1,len(qs))
def fit(qs,feats,init=None,rounds=4):
    w=np.zeros(len(names)); 
    if init is not None: w=init.copy()
    else: w[0]=1.0
    best=mean(qs,w)
    grid=[-1,-0.5,-0.25,-0.1,0,0.05,0.1,0.25,0.5,1,2]
    for r in range(rounds):
        improved=False
        for j in feats:
            if j==0: continue
            for g in grid:
                w2=w.copy(); w2[j]=g
                m=mean(qs,w2)
                if m>best+1e-4: best, w, improved = m, w2, True
        if not improved: break
    return w,best
if __name__=='__main__':
    feats=[int(x) for x in sys.argv[1].split(',')] if len(sys.argv)>1 else list(range(len(names)))
    tuned=[q for q in Q if q['split']=='tuned']; held=[q for q in Q if q['split']=='held-out']
    base=np.zeros(len(names)); base[0]=1
    hyb=np.zeros(len(names)); hyb[1]=1
    sets=sorted(set(q['set'] for q in Q),key=lambda s:[q['split'] for q in Q if q['set']==s][0])
    print('baseline bm25 tuned %.3f held %.3f | hybrid tuned %.3f held %.3f'%(mean(tuned,base),mean(held,base),mean(tuned,hyb),mean(held,hyb)))
    # leave-one-set-out on tuned
    tsets=sorted(set(q['set'] for q in tuned))
    cv=[]
    for s in tsets:
        tr=[q for q in tuned if q['set']!=s]; te=[q for q in tuned if q['set']==s]
        w,_=fit(tr,feats)
        cv.append((s,mean(te,base),mean(te,w)))
    print('LOSO tuned:', ' '.join('%s %.3f->%.3f'%c for c in cv))
    w,b=fit(tuned,feats)
    print('fit tuned %.3f weights:'%b, {names[j]:w[j] for j in range(len(names)) if w[j]!=0})
    if '--held' in sys.argv:
        for s in sets:
            qs=[q for q in Q if q['set']==s]
            print('  %-20s %-8s bm25 %.3f hybrid %.3f fitted %.3f'%(s,qs[0]['split'],mean(qs,base),mean(qs,hyb),mean(qs,w)))
        print('held all bm25 %.3f hybrid %.3f fitted %.3f'%(mean(held,base),mean(held,hyb),mean(held,w)))
