#!/usr/bin/env python3
"""The workflow of ./Snakefile as Nextflow 24.04's Slurm executor would run it: one task work
directory per task, LAUNCH/work/<2 hex>/<30 hex>/ with .command.run (the #SBATCH header and the
bash wrapper of Nextflow's command-run.txt template) and .command.sh (the task script), written
with tests/fixtures/nextflow/render.py (whose docstring says which Nextflow code each part
reproduces). Nextflow submits a task with `sbatch .command.run` from its work directory once
its inputs exist, and sees it finish by its .exitcode file; test_workflow.sh does the same,
level by level.

Usage: nextflow.py LAUNCH DATA      writes the work dirs; prints one line per task:
                                    LEVEL<TAB>WORKDIR<TAB>PROCESS<TAB>TAG"""
import hashlib
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "..", "fixtures", "nextflow", "render.py")
TIME = "/usr/bin/time -v -o"


def load_renderer():
    spec = importlib.util.spec_from_file_location("nf_render", FIXTURE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tasks(launch, data):
    """(level, process, tag, cpus, inputs {name: target}, script) like the Snakefile's rules;
    outputs of a task are staged into the next one as symlinks, as Nextflow does."""
    t = []

    def workdir(name):
        h = hashlib.md5(f"{launch}\0{name}".encode()).hexdigest()
        return h, f"{launch}/work/{h[:2]}/{h[2:]}"

    def add(level, process, tag, cpus, inputs, script):
        name = f"VARIANT_CALLING:{process} ({tag})"
        h, wd = workdir(name)
        t.append(dict(level=level, process=f"VARIANT_CALLING:{process}", tag=tag, name=name, hash=h,
                      workdir=wd, cpus=cpus, inputs=inputs, script=script))
        return wd

    idx = add(0, "BWA_INDEX", "1", 1, {"genome.fa": f"{data}/genome.fa"},
              f"{TIME} .time.bwa_index bwa index genome.fa 2> /dev/null\n")
    ref = {"genome.fa": f"{data}/genome.fa", **{f"genome.fa.{x}": f"{idx}/genome.fa.{x}"
                                                for x in ("amb", "ann", "bwt", "pac", "sa")}}
    sorted_bams = {}
    for s in "AB":
        mem = add(1, "BWA_MAP", f"sample{s}", 2, {**ref, f"{s}.fastq": f"{data}/samples/{s}.fastq"},
                  f"{TIME} .time.bwa_mem bwa mem -t 2 genome.fa {s}.fastq 2> /dev/null"
                  f" | {TIME} .time.samtools_view samtools view -b -o {s}.bam -\n")
        srt = add(2, "SAMTOOLS_SORT", f"sample{s}", 1, {f"{s}.bam": f"{mem}/{s}.bam"},
                  f"{TIME} .time.samtools_sort samtools sort -T {s}.tmp -o {s}.sorted.bam {s}.bam\n")
        ix = add(3, "SAMTOOLS_INDEX", f"sample{s}", 1, {f"{s}.sorted.bam": f"{srt}/{s}.sorted.bam"},
                 f"{TIME} .time.samtools_index samtools index {s}.sorted.bam\n")
        sorted_bams[f"{s}.sorted.bam"] = f"{srt}/{s}.sorted.bam"
        sorted_bams[f"{s}.sorted.bam.bai"] = f"{ix}/{s}.sorted.bam.bai"
    add(4, "BCFTOOLS_CALL", "1", 1, {"genome.fa": f"{data}/genome.fa", **sorted_bams},
        f"{TIME} .time.bcftools_mpileup bcftools mpileup -f genome.fa A.sorted.bam B.sorted.bam 2> /dev/null"
        f" | {TIME} .time.bcftools_call bcftools call -mv -o calls.vcf 2> /dev/null\n")
    return t


def main():
    launch, data = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    r = load_renderer()
    for task in tasks(launch, data):
        wd = task["workdir"]
        stage = ["# stage input files"]
        stage += [f"rm -f {n}" for n in task["inputs"]]
        stage += [f"ln -s {t} {n}" for n, t in task["inputs"].items()]
        header = r.headers({"name": task["name"], "cpus": task["cpus"], "time": "00:10:00",
                            "mem_mb": 500, "queue": "debug"}, wd)
        binding = {
            "header_script": header,
            "task_name": task["name"],
            "exit_file": f"> {wd}/.exitcode",
            "kill_cmd": '[[ "$pid" ]] && nxf_kill $pid',
            "launch_cmd": f"/bin/bash -ue {wd}/.command.sh",
            "stage_inputs": "\n".join(stage),
            "scratch_cmd": "NXF_SCRATCH=''",
            "touch_file": f"touch {wd}/.command.begin",
            "stage_cmd": "nxf_stage",
            "unstage_cmd": "nxf_unstage",
            "stdout_file": ".command.out",
            "stderr_file": ".command.err",
        }
        os.makedirs(wd, exist_ok=True)
        with open(os.path.join(wd, ".command.run"), "w") as f:
            f.write(r.render(r.TEMPLATE, binding))
        with open(os.path.join(wd, ".command.sh"), "w") as f:
            f.write("#!/bin/bash -ue\n" + task["script"])
        print(f"{task['level']}\t{wd}\t{task['process']}\t{task['tag']}")


if __name__ == "__main__":
    main()
