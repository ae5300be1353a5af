"""bench/report's parts: Google Benchmark JSON of parprim-bench / parprim-bench-mpi in, tables
and plots out.

results    reading the JSON files into one record per benchmark (the median where repeated)
fmt        number formats and Markdown tables
model      the lecture's cost model T_P(n, p) = t_c n/p + lambda(p), its fit and isoefficiency
bandwidth  GB/s vs n per primitive with the copy roof; the compact summary table
ladders    the CUDA kernel ladders in the lecture's form
openmp     speedup, efficiency, cost and isoefficiency from a thread sweep
mpi        strong and weak scaling with the measured collective latency
plots      every figure (matplotlib, Agg); imported only when plots are wanted
report     the command line: assembles report.md, plots.json and the PNG files
"""
