#!/usr/bin/env python3
"""Deterministic small data for the workflow test: OUT/genome.fa (one chromosome of GENOME_LEN
random bases) and OUT/samples/{A,B}.fastq (READS reads of 100 bases each, from a donor with a
substitution every kilobase or so, so that bcftools has variants to call). Sized so that each
tool runs for a noticeable fraction of a second: bwa mem about 1 s of CPU per sample.

Usage: make-data.py OUT [GENOME_LEN [READS]]"""
import os
import random
import sys

out = sys.argv[1]
genome_len = int(sys.argv[2]) if len(sys.argv) > 2 else 150000
reads = int(sys.argv[3]) if len(sys.argv) > 3 else 40000
rng = random.Random(5)
genome = "".join(rng.choice("ACGT") for _ in range(genome_len))
os.makedirs(f"{out}/samples", exist_ok=True)
with open(f"{out}/genome.fa", "w") as f:
    f.write(">chr1\n")
    for i in range(0, genome_len, 60):
        f.write(genome[i:i + 60] + "\n")
for sample in "AB":
    donor = list(genome)
    for pos in rng.sample(range(genome_len), genome_len // 1000):
        donor[pos] = rng.choice([b for b in "ACGT" if b != genome[pos]])
    donor = "".join(donor)
    with open(f"{out}/samples/{sample}.fastq", "w") as f:
        for n in range(reads):
            start = rng.randrange(0, genome_len - 100)
            f.write(f"@{sample}_{n}\n{donor[start:start + 100]}\n+\n{'I' * 100}\n")
