#!/bin/bash
# Usage: experiments/run/v4_dspark_vs_mtp1.sh PROFILE   (CONCURRENCY="5 10 ..." to choose the points)
# DSpark-5 async-topk vs MTP-1 on a telemetry profile: steady-state (25-95% of 120 s) decode
# throughput per GPU and tokens/s per user at closed-loop concurrency per GPU.
P=$1
for C in ${CONCURRENCY:-5 10 25 50 100 150 200 300}; do
  for D in "mtp1 static:k=1" "dspark-5 async-topk"; do
    set -- $D
    build/sparksim run --profile $P --closed-loop-users $C --synthetic "rate=1,prompt=fixed:128,output=lognormal:800:0.5,domain=math:1/code:1/chat:1,duration_s=120" --drafter $1 --policy $2 --prefill separate --max-running 4096 --out ${TMPDIR:-/tmp}/v4cmp_$1_$C >/dev/null || exit 1
    python3 - "$C" "$1" ${TMPDIR:-/tmp}/v4cmp_$1_$C <<'PY'
import csv,sys
C=int(sys.argv[1]); rows=[r for r in csv.DictReader(open(sys.argv[3]+'/timeseries.csv')) if 30<=float(r['time_s'])<114]
x=sum(float(r['throughput_tok_s']) for r in rows)/len(rows); tau=sum(float(r['tau']) for r in rows)/len(rows)
vt=sum(float(r['verify_tokens_per_request_step']) for r in rows)/len(rows)
print(f"{sys.argv[2]:9s} C={C:4d} tok/s/GPU={x:8.0f} tok/s/user={x/C:6.1f} tau={tau:.2f} verify/req={vt:.2f}")
PY
  done
done
