# One rule that outgrows its memory (test_advice.sh): under `snakemake --slurm`, the engine in
# the batch step and its rule's tool in an srun step share the job's --mem of mem_mb, and the
# tool grows 4 MiB every 50 ms (to 320 MiB) until the OOM killer stops the job.
rule all:
    input:
        "out.txt",


rule coverage_matrix:
    output:
        "out.txt",
    resources:
        mem_mb=200,
    shell:
        "python3 -c \"import time; b = []; [(b.append(b'x' * (4 << 20)), time.sleep(0.05)) for i in range(80)]\" && touch {output}"
