# Sums up the tile lines HPGRAPH_CUDA_PROBE=1 prints after a pull
# (printTileProbe in cuda/trace.go) for one launch: the span, when the
# multiprocessors finish, tile times by kind, and the last tiles to end.
# Usage, on the GPU machine (the last launch's lines):
#   HPGRAPH_CUDA_PROBE=1 bin/hpgraph run pagerank-ldbc G --backend cuda --iterations 1 --precision float32 2>&1 |
#     grep 'hpgraph tile' | tail -n TILES | awk -f scripts/tile-probe.awk
/^hpgraph tile/ { i=$3; sm[i]=$5; seg[i]=$7; mu[i]=$9; gr[i]=$11; t0[i]=$13; t1[i]=$15; if (i+0>mx) mx=i+0 }
END {
  n=mx+1; T0=-1; T1=0
  for (i=0;i<n;i++) { if (T0<0||t0[i]<T0) T0=t0[i]; if (t1[i]>T1) T1=t1[i]; e=t1[i]; if (e>smend[sm[i]]) smend[sm[i]]=e; busy[sm[i]]+=t1[i]-t0[i] }
  printf "tiles %d span %.1f us\n", n, (T1-T0)/1000
  ns=0; s=0; mn=1e18; mxe=0
  for (k in smend) { ns++; v=smend[k]-T0; s+=v; if (v<mn) mn=v; if (v>mxe) mxe=v; bs+=busy[k] }
  printf "SMs %d: end min %.1f avg %.1f max %.1f us; busy/SM avg %.1f us (2 slots)\n", ns, mn/1000, s/ns/1000, mxe/1000, bs/ns/1000
  for (i=0;i<n;i++) { c = (seg[i]==0) ? "seg0" : (mu[i]==1 ? "multi" : "single"); d=(t1[i]-t0[i]); cn[c]++; cd[c]+=d; cg[c]+=gr[i] }
  for (c in cn) printf "%-6s tiles %4d avg %.1f us, groups %.0f, ns/group %.1f\n", c, cn[c], cd[c]/cn[c]/1000, cg[c]/cn[c], cd[c]/cg[c]
  # finishing order: last 12 tiles to end
  for (i=0;i<n;i++) ord[i]=i
  for (i=0;i<n;i++) for (j=i+1;j<n;j++) if (t1[ord[j]]>t1[ord[i]]) { x=ord[i]; ord[i]=ord[j]; ord[j]=x }
  for (k=0;k<12;k++) { i=ord[k]; printf "late: tile %d seg %d multi %d groups %d start %.1f end %.1f dur %.1f sm %d\n", i, seg[i], mu[i], gr[i], (t0[i]-T0)/1000, (t1[i]-T0)/1000, (t1[i]-t0[i])/1000, sm[i] }
}
