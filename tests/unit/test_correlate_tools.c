/* Unit tests for correlate/tools.c and rules_parse.c: real command lines named by the
 * built-in rules (etc/tools.rules, compiled in), every exec of the fixture workflows,
 * rules-file errors. Inputs are copied into exact-size heap buffers so that valgrind sees any
 * read past their end. Run from the repository root (make unit), or set TRACER_SRCDIR. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testlib.h"

#include "engine_tools.h"
#include "tools.h"

static struct tool_rules *rules;

static int load_rules(void **state)
{
	char err[512];

	(void)state;
	if (tool_rules_builtin(&rules, err, sizeof(err)) != 0) {
		fprintf(stderr, "cannot parse the built-in rules: %s\n", err);
		return -1;
	}
	return 0;
}

static int free_rules(void **state)
{
	(void)state;
	tool_rules_free(rules);
	return 0;
}

struct cmd {
	const char *exe; /* NULL: none */
	const char *argv;
	size_t len;
	const char *name, *sub, *interp;
	int excluded;
};

#define C(exe, argv, name, sub, interp, excl)                        \
	{                                                            \
		exe, argv, sizeof(argv) - 1, name, sub, interp, excl \
	}

/* Identify a[0..len) with exe, from exact-size heap copies. */
static int identify(const struct tool_rules *r, const char *exe, const char *argv, size_t len,
		    unsigned flags, struct tool_id *out)
{
	char *a = malloc(len ? len : 1), *e = exe ? strdup(exe) : NULL;
	int rc;

	assert_non_null(a);
	memcpy(a, argv, len);
	rc = tool_identify_flags(r, e, len ? a : NULL, len, flags, out);
	free(a);
	free(e);
	return rc;
}

static void check(const struct tool_rules *r, const struct cmd *c, unsigned flags)
{
	struct tool_id id;
	char shown[512];
	size_t i;

	assert_int_equal(identify(r, c->exe, c->argv, c->len, flags, &id), 0);
	if (strcmp(id.name, c->name) || strcmp(id.subcommand, c->sub) ||
	    strcmp(id.interpreter, c->interp) || id.excluded != c->excluded) {
		for (i = 0; i < c->len && i < sizeof(shown) - 1; i++)
			shown[i] = c->argv[i] ? c->argv[i] : ' ';
		shown[i] = 0;
		fail_msg("<<%s>>: got name=%s sub=%s interp=%s excluded=%d, want %s/%s/%s/%d",
			 shown, id.name, id.subcommand, id.interpreter, id.excluded, c->name,
			 c->sub, c->interp, c->excluded);
	}
}

/* ---- aligners, SAM/BAM/VCF toolkits, QC, callers: the tools and their subcommands */
static const struct cmd bio[] = {
	C("/usr/bin/bwa", "bwa\0mem\0-t\0008\0ref.fa\0r1.fq\0r2.fq", "bwa", "mem", "", 0),
	C("/usr/bin/bwa", "bwa\0index\0data/genome.fa", "bwa", "index", "", 0),
	C(NULL, "bwa-mem2\0mem\0-t\00016\0ref.fa\0r1.fq", "bwa-mem2", "mem", "", 0),
	/* bwa-mem2's launcher execs the SIMD build keeping argv[0] */
	C("/opt/bwa-mem2/bwa-mem2.avx512bw", "/opt/bwa-mem2/bwa-mem2\0mem\0ref\0r1", "bwa-mem2",
	  "mem", "", 0),
	C(NULL, "/opt/bwa-mem2/bwa-mem2.avx2\0mem\0ref\0r1", "bwa-mem2", "mem", "", 0),
	/* the bowtie2 perl wrapper, then the binary it runs */
	C("/usr/bin/bowtie2", "/usr/bin/env\0perl\0/usr/bin/bowtie2\0-x\0idx\0-U\0r.fq", "bowtie2",
	  "", "perl", 0),
	C(NULL, "/usr/bin/bowtie2-align-s\0--wrapper\0basic-0\0-x\0idx\0-U\0r.fq", "bowtie2", "",
	  "", 0),
	C(NULL, "python3\0/usr/bin/bowtie2-build\0ref.fa\0idx", "bowtie2-build", "", "python3", 0),
	C(NULL, "/usr/bin/bowtie2-build-s\0--wrapper\0basic-0\0ref.fa\0idx", "bowtie2-build", "",
	  "", 0),
	C(NULL, "hisat2-align-s\0--wrapper\0basic-0\0-x\0idx\0-1\0r1\0-2\0r2", "hisat2", "", "", 0),
	C(NULL, "STAR\0--runThreadN\0008\0--genomeDir\0idx\0--readFilesIn\0r1\0r2", "STAR", "", "",
	  0),
	C(NULL, "minimap2\0-ax\0sr\0ref.fa\0r1.fq", "minimap2", "", "", 0),
	C(NULL, "salmon\0quant\0-i\0idx\0-l\0A\0-1\0r1\0-2\0r2\0-o\0out", "salmon", "quant", "", 0),
	C(NULL, "kallisto\0quant\0-i\0idx\0-o\0out\0r1\0r2", "kallisto", "quant", "", 0),
	C(NULL, "samtools\0sort\0-@\0004\0-o\0x.bam\0in.bam", "samtools", "sort", "", 0),
	C(NULL, "samtools\0view\0-Sb\0-", "samtools", "view", "", 0),
	C(NULL, "samtools\0index\0sorted_reads/A.bam", "samtools", "index", "", 0),
	C(NULL, "samtools\0depth\0-r\0chr1:1-1000\0x.bam", "samtools", "depth", "", 0),
	/* a file where a subcommand would be is not one */
	C(NULL, "samtools\0x.bam", "samtools", "", "", 0),
	C(NULL, "bcftools\0mpileup\0-f\0ref.fa\0a.bam", "bcftools", "mpileup", "", 0),
	C(NULL, "bcftools\0call\0-mv\0-", "bcftools", "call", "", 0),
	C(NULL, "bcftools\0+fill-tags\0in.vcf", "bcftools", "+fill-tags", "", 0),
	C(NULL, "bedtools\0intersect\0-a\0a.bed\0-b\0b.bed", "bedtools", "intersect", "", 0),
	C(NULL, "tabix\0-p\0vcf\0x.vcf.gz", "tabix", "", "", 0),
	C(NULL, "bgzip\0-@\0004\0x.vcf", "bgzip", "", "", 0),
	C("/usr/bin/java", "java\0-Xmx4g\0-jar\0/opt/picard.jar\0SortSam\0I=in.bam\0O=out.bam",
	  "picard", "SortSam", "java", 0),
	C(NULL,
	  "java\0-Dpicard.useLegacyParser=false\0-jar\0picard-2.27.5."
	  "jar\0CollectAlignmentSummaryMetrics",
	  "picard", "CollectAlignmentSummaryMetrics", "java", 0),
	C(NULL, "/bin/sh\0/usr/bin/PicardCommandLine\0MarkDuplicates\0I=a.bam", "picard",
	  "MarkDuplicates", "sh", 0),
	C(NULL, "java\0-cp\0/usr/share/java/picard.jar\0picard.cmdline.PicardCommandLine\0SortSam",
	  "picard", "SortSam", "java", 0),
	C(NULL, "picard\0SortSam\0-I\0in.bam", "picard", "SortSam", "", 0),
	C(NULL, "gatk\0HaplotypeCaller\0-R\0ref.fa\0-I\0in.bam\0-O\0out.vcf", "gatk",
	  "HaplotypeCaller", "", 0),
	C(NULL, "gatk\0--java-options\0-Xmx4g -XX:+UseParallelGC\0HaplotypeCaller\0-R\0ref.fa",
	  "gatk", "HaplotypeCaller", "", 0),
	C(NULL, "python3\0/opt/gatk/gatk\0Mutect2\0-R\0ref.fa", "gatk", "Mutect2", "python3", 0),
	C(NULL,
	  "java\0-Dsamjdk.use_async_io_read_samtools=false\0-Xmx4g\0-jar\0"
	  "/gatk/gatk-package-4.5.0.0-local.jar\0HaplotypeCaller\0-R\0ref.fa",
	  "gatk", "HaplotypeCaller", "java", 0),
	C(NULL, "java\0-jar\0GenomeAnalysisTK.jar\0-R\0ref.fa\0-T\0HaplotypeCaller", "gatk3",
	  "HaplotypeCaller", "java", 0),
	C(NULL, "java\0-cp\0/gatk/gatk.jar\0org.broadinstitute.hellbender.Main\0PrintReads", "gatk",
	  "PrintReads", "java", 0),
	C(NULL, "perl\0/usr/bin/fastqc\0-t\0004\0-o\0qc\0r1.fq", "fastqc", "", "perl", 0),
	C(NULL,
	  "java\0-Xmx250m\0-classpath\0/usr/share/"
	  "fastqc\0uk.ac.babraham.FastQC.FastQCApplication\0r1.fq",
	  "fastqc", "", "java", 0),
	C("/opt/x/bin/multiqc", "/usr/bin/python3\0/opt/x/bin/multiqc\0.", "multiqc", "", "python3",
	  0),
	C(NULL, "multiqc\0-o\0results/multiqc\0results", "multiqc", "", "", 0),
	C(NULL, "fastp\0-i\0r1.fq\0-I\0r2.fq\0-o\0o1.fq\0-O\0o2.fq", "fastp", "", "", 0),
	C(NULL, "/usr/bin/python3\0/usr/bin/cutadapt\0-a\0AGATCGGAAGAGC\0-o\0out.fq\0in.fq",
	  "cutadapt", "", "python3", 0),
	C(NULL, "java\0-jar\0/opt/trimmomatic-0.39.jar\0PE\0-threads\0004\0r1\0r2", "trimmomatic",
	  "PE", "java", 0),
	C(NULL, "TrimmomaticPE\0-threads\0004\0r1\0r2", "trimmomatic", "", "", 0),
	C(NULL, "freebayes\0-f\0ref.fa\0a.bam", "freebayes", "", "", 0),
	C(NULL, "python3\0/opt/deepvariant/bin/run_deepvariant\0--model_type=WGS\0--ref=ref.fa",
	  "deepvariant", "", "python3", 0),
	C(NULL, "python2\0configureStrelkaGermlineWorkflow.py\0--bam\0x.bam", "strelka", "",
	  "python2", 0),
	C(NULL, "featureCounts\0-T\0004\0-a\0ann.gtf\0-o\0counts.txt\0a.bam", "featureCounts", "",
	  "", 0),
	C(NULL, "java\0-jar\0/opt/VarScan.v2.4.4.jar\0mpileup2snp\0x.pileup", "varscan",
	  "mpileup2snp", "java", 0),
	C(NULL, "java\0-jar\0/opt/tools/foo-1.2.3.jar\0--in\0x", "foo", "", "java", 0),
	C(NULL, "python3\0/usr/bin/spades.py\0-1\0r1\0-2\0r2\0-o\0out", "spades", "", "python3", 0),
	C(NULL, "perl\0/usr/bin/Trinity\0--seqType\0fq", "Trinity", "", "perl", 0),
	C(NULL, "kraken2\0--db\0db\0--threads\0008\0r.fq", "kraken2", "", "", 0),
	C(NULL, "diamond\0blastx\0-d\0db\0-q\0q.fa", "diamond", "blastx", "", 0),
	C(NULL, "mpirun\0-np\00016\0--map-by\0core\0--bind-to\0core\0gmx_mpi\0mdrun\0-deffnm\0md",
	  "gmx_mpi", "mdrun", "", 0),
};

/* ---- interpreters: R, perl, shells, python modules */
static const struct cmd interp[] = {
	C(NULL, "Rscript\0--vanilla\0scripts/deseq2.R\0counts.txt", "deseq2", "", "Rscript", 0),
	C(NULL, "Rscript\0x.R", "x", "", "Rscript", 0),
	C(NULL, "Rscript\0-e\0rmarkdown::render(\"x.Rmd\")", "Rscript", "", "", 0),
	C(NULL, "/usr/lib/R/bin/exec/R\0--no-echo\0--no-restore\0--file=plot.R\0--args\0a", "plot",
	  "", "R", 0),
	C(NULL, "/bin/bash\0/usr/lib/R/bin/R\0--no-echo\0--no-restore\0--file=plot.R", "plot", "",
	  "R", 0),
	C(NULL, "R\0CMD\0BATCH\0x.R", "R", "", "", 0),
	C(NULL, "perl\0x.pl", "x.pl", "", "perl", 0),
	C(NULL, "perl\0scripts/vcf2maf.pl\0--input-vcf\0x.vcf", "vcf2maf.pl", "", "perl", 0),
	C(NULL, "perl\0-ne\0print if /^>/\0x.fa", "perl", "", "", 0),
	C(NULL, "perl\0-MData::Dumper\0-w\0dump.pl", "dump.pl", "", "perl", 0),
	C(NULL, "perl\0-I\0lib\0bin/run.pl", "run.pl", "", "perl", 0),
	C(NULL, "bash\0script.sh", "script.sh", "", "bash", 0),
	C(NULL, "bash\0run_pipeline.sh\0sample1", "run_pipeline.sh", "", "bash", 0),
	C(NULL, "bash\0-eo\0pipefail\0-x\0steps/align.sh", "align.sh", "", "bash", 0),
	C(NULL, "/usr/bin/bash\0-c\0set -euo pipefail;  samtools index sorted_reads/A.bam", "bash",
	  "", "", 1),
	C("/var/spool/slurmd/job00123/slurm_script",
	  "/bin/sh\0/var/spool/slurmd/job00123/slurm_script", "slurm_script", "", "sh", 1),
	C(NULL, "/bin/bash\0-ue\0/scratch/work/3f/0a4e8b9c1d2e3f405162738495a6b7/.command.sh",
	  ".command.sh", "", "bash", 1),
	C(NULL,
	  "/bin/bash\0/scratch/work/3f/0a4e8b9c1d2e3f405162738495a6b7/.command.run\0nxf_trace",
	  ".command.run", "", "bash", 1),
	C(NULL, "-bash", "bash", "", "", 1),
	C(NULL, "python3\0-m\0snakemake\0--snakefile\0Snakefile", "snakemake", "", "python3", 0),
	C(NULL, "python\0-m\0pip\0install\0numpy", "pip", "install", "python", 0),
	C(NULL, "python\0-m\0pkg.mod", "pkg.mod", "", "python", 0),
	C(NULL, "python3\0-m\0json.tool\0in.json", "json.tool", "", "python3", 0),
	C(NULL, "python3\0-m\0pkg.__main__", "pkg", "", "python3", 0),
	C(NULL, "/usr/bin/python3\0-m\0pip.__main__\0install\0x", "pip", "install", "python3", 0),
	/* scripts run by their #! line: the kernel's argv is "interpreter [arg] script ..." */
	C("/usr/bin/cwltool", "/usr/bin/python3\0/usr/bin/cwltool\0--no-container\0wf.cwl",
	  "cwltool", "", "python3", 0),
	C("./pytool", "/usr/bin/python3\0./pytool\0x", "pytool", "", "python3", 0),
	C("./pltool", "/usr/bin/perl\0-w\0./pltool", "pltool", "", "perl", 0),
	C(NULL, "python3\0./pytool", "pytool", "", "python3", 0), /* #!/usr/bin/env python3 */
	/* ... whatever the interpreter: awk is plumbing, its script is not */
	C("/opt/bin/count.awk", "/usr/bin/awk\0-f\0/opt/bin/count.awk\0in.txt", "count.awk", "",
	  "awk", 0),
	C("./run.tcl", "/usr/bin/tclsh\0./run.tcl", "run.tcl", "", "tclsh", 0),
	C("./x", "/usr/bin/awk\0-f\0./y", "awk", "", "", 1), /* not its #! line */
	C(NULL, "python3\0-mmultiqc\0.", "multiqc", "", "python3", 0),
	C(NULL, "python3\0-u\0train.py\0--config\0cfg.yaml", "train.py", "", "python3", 0),
	C(NULL, "python3.11\0-X\0importtime\0-W\0ignore\0script.py", "script.py", "", "python3.11",
	  0),
	C(NULL, "python3\0-c\0import sys", "python3", "", "", 0),
	C(NULL, "python3", "python3", "", "", 0),
	C(NULL, "python3\0-\0<\0x", "python3", "", "", 0),
	C(NULL, "node\0--max-old-space-size=4096\0server.js", "server.js", "", "node", 0),
	C(NULL, "bash\0/usr/local/bin/nextflow\0run\0main.nf\0-profile\0slurm", "nextflow", "run",
	  "bash", 0),
	C(NULL,
	  "java\0-jar\0/home/u/.nextflow/framework/24.04.4/nextflow-24.04.4-one.jar\0run\0main.nf",
	  "nextflow", "run", "java", 0),
	C(NULL, "java\0-version", "java", "", "", 0),
};

/* ---- wrappers: environment, timing, Slurm, containers, conda, ML launchers */
static const struct cmd wrap[] = {
	C(NULL, "env\0OMP_NUM_THREADS=4\0CUDA_VISIBLE_DEVICES=0\0python3\0train.py", "train.py", "",
	  "python3", 0),
	C(NULL, "env\0-i\0PATH=/usr/bin\0-u\0HOME\0samtools\0view\0x.bam", "samtools", "view", "",
	  0),
	C("/opt/tools/align.py", "/usr/bin/env\0-S python3 -u\0/opt/tools/align.py\0arg",
	  "align.py", "", "python3", 0),
	C(NULL, "env\0-Spython3 -u\0/opt/tools/align.py", "align.py", "", "python3", 0),
	C(NULL, "/usr/bin/time\0-v\0-o\0time.txt\0bwa\0mem\0ref\0r1", "bwa", "mem", "", 0),
	C(NULL, "/usr/bin/time\0-f\0%e %M\0samtools\0sort\0x", "samtools", "sort", "", 0),
	C(NULL, "nice\0-n\00010\0samtools\0sort\0x", "samtools", "sort", "", 0),
	C(NULL, "nice\0-5\0gzip\0big.fq", "gzip", "", "", 0),
	C(NULL, "timeout\0-s\0KILL\0-k\00030\0002h\0STAR\0--runMode\0genomeGenerate", "STAR", "",
	  "", 0),
	C(NULL, "timeout\00010m\0bcftools\0index\0x.vcf.gz", "bcftools", "index", "", 0),
	C(NULL, "srun\0-n\0001\0-c\0008\0--mem=16G\0--cpu-bind=cores\0bwa\0mem\0-t\0008\0ref\0r1",
	  "bwa", "mem", "", 0),
	C(NULL,
	  "srun\0-n1\0--cpu-bind=q\0/usr/bin/python3\0-m\0snakemake\0--snakefile\0/p/workflow/"
	  "Snakefile",
	  "snakemake", "", "python3", 0),
	C(NULL, "srun\0--mpi=pmix\0-N\0002\0--ntasks-per-node\0004\0./simulate\0--steps\000100",
	  "simulate", "", "", 0),
	C(NULL, "srun\0--pty\0bash", "bash", "", "", 1),
	C(NULL,
	  "singularity\0exec\0--nv\0-B\0/data:/data\0/images/deepvariant.sif\0"
	  "/opt/deepvariant/bin/run_deepvariant\0--model_type\0WGS",
	  "deepvariant", "", "", 0),
	C(NULL,
	  "apptainer\0exec\0docker://quay.io/biocontainers/"
	  "samtools:1.17\0samtools\0flagstat\0x.bam",
	  "samtools", "flagstat", "", 0),
	C(NULL,
	  "singularity\0--quiet\0exec\0--bind\0/scratch,/data\0-e\0--pwd\0/"
	  "work\0img.sif\0bash\0-c\0bwa mem r",
	  "bash", "", "", 1),
	C(NULL, "singularity\0run\0img.sif", "singularity", "run", "", 0),
	C(NULL, "singularity\0pull\0docker://biocontainers/bwa", "singularity", "pull", "", 0),
	C(NULL, "conda\0run\0-n\0bioinfo\0--no-capture-output\0multiqc\0.", "multiqc", "", "", 0),
	C(NULL, "conda\0run\0-p\0/opt/envs/qc\0fastqc\0r1.fq", "fastqc", "", "", 0),
	C(NULL, "mamba\0run\0-n\0env\0salmon\0quant\0-i\0idx", "salmon", "quant", "", 0),
	C(NULL, "micromamba\0run\0-n\0base\0-r\0/opt/mamba\0python\0-m\0cutadapt\0-a\0A",
	  "cutadapt", "", "python", 0),
	C(NULL, "conda\0install\0-n\0env\0samtools", "conda", "install", "", 0),
	C(NULL, "env\0time\0nice\0env\0timeout\0005\0env\0samtools\0index\0x.bam", "samtools",
	  "index", "", 0),
	C(NULL, "xargs\0-0\0-n\0001\0-P\0008\0gzip", "gzip", "", "", 0),
	C(NULL, "taskset\0-c\0000-7\0minimap2\0-t\0008\0ref\0r", "minimap2", "", "", 0),
	C(NULL, "numactl\0--cpunodebind=0\0--membind=0\0STAR\0--runThreadN\0008", "STAR", "", "",
	  0),
	C(NULL, "stdbuf\0-oL\0-eL\0python3\0-u\0run.py", "run.py", "", "python3", 0),
	C(NULL, "ionice\0-c\0003\0rsync\0-a\0src/\0dst/", "rsync", "", "", 0),
	C(NULL, "flock\0/tmp/ref.lock\0samtools\0faidx\0ref.fa", "samtools", "faidx", "", 0),
	C(NULL, "python3\0-m\0torch.distributed.run\0--nproc_per_node=4\0train.py\0--epochs\00010",
	  "train.py", "", "python3", 0),
	C(NULL, "torchrun\0--standalone\0--nproc_per_node\0008\0train.py", "train.py", "", "", 0),
	C(NULL, "torchrun\0--nnodes\0002\0-m\0mypkg.train\0--lr\0001e-3", "mypkg.train", "", "", 0),
	C(NULL, "/usr/bin/python3\0/usr/local/bin/torchrun\0--nproc-per-node\0004\0finetune.py",
	  "finetune.py", "", "python3", 0),
	C(NULL,
	  "accelerate\0launch\0--config_file\0cfg.yaml\0--multi_gpu\0--num_processes\0004\0"
	  "train_lora.py\0--model\0x",
	  "train_lora.py", "", "", 0),
	/* an option missing from the lists: until= still finds the script */
	C(NULL, "accelerate\0launch\0--some_new_flag\0value\0train.py", "train.py", "", "", 0),
	C(NULL, "deepspeed\0--num_gpus\0008\0train.py\0--deepspeed\0ds_config.json", "train.py", "",
	  "", 0),
};

/* ---- plumbing and odd inputs */
static const struct cmd odd[] = {
	C(NULL, "cat\0x.txt", "cat", "", "", 1),
	C(NULL, "sed\0-n\0001p\0x", "sed", "", "", 1),
	C(NULL, "awk\0{print $1}\0x", "awk", "", "", 1),
	C(NULL, "mkdir\0-p\0out", "mkdir", "", "", 1),
	C(NULL, "/usr/bin/tee\0.command.out", "tee", "", "", 1),
	C(NULL, "sort\0-k1,1\0-k2,2n\0x.bed", "sort", "", "", 0),
	C(NULL, "pigz\0-p\0008\0x.fq", "pigz", "", "", 0),
	C(NULL, "env", "env", "", "", 1),
	C(NULL, "snakemake\0--slurm\0-j\00010", "snakemake", "", "", 0),
	C(NULL, "jupyter-lab\0--no-browser", "jupyter-lab", "", "", 0),
	C(NULL, "docker\0run\0--rm\0img\0cmd", "docker", "run", "", 0),
	C(NULL, "./my_tool\0--in\0x", "my_tool", "", "", 0),
	C("./run.sh", "", "run.sh", "", "", 0),
	/* argv[0] rewritten with blanks: the exe names it */
	C("/usr/bin/python3.11", "ray::IDLE worker", "python3.11", "", "", 0),
	/* an empty argv[0] */
	C("/usr/bin/samtools", "\0view\0x.bam", "samtools", "view", "", 0),
	/* a trailing slash, control bytes */
	C(NULL, "/opt/tools/\0x", "/opt/tools/", "", "", 0),
	C(NULL, "to\001ol\0x", "to?ol", "", "", 0),
	C(NULL, "\xff\xfe\0x", "\xff\xfe", "", "", 0),
	/* a wrapper with nothing to run, an interpreter option without its value */
	C(NULL, "timeout\00010", "timeout", "", "", 1),
	C(NULL, "python3\0-m", "python3", "", "", 0),
	C(NULL, "java\0-jar", "java", "", "", 0),
	C(NULL, "singularity\0exec\0img.sif", "singularity", "", "", 0),
};

static void run_table(const struct cmd *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		check(rules, &t[i], 0);
}

#define TABLE(name)                                            \
	static void test_##name(void **state)                  \
	{                                                      \
		(void)state;                                   \
		run_table(name, sizeof(name) / sizeof(*name)); \
	}
TABLE(bio)
TABLE(interp)
TABLE(wrap)
TABLE(odd)

static void test_count(void **state)
{
	size_t n = sizeof(bio) / sizeof(*bio) + sizeof(interp) / sizeof(*interp) +
		   sizeof(wrap) / sizeof(*wrap) + sizeof(odd) / sizeof(*odd);

	(void)state;
	print_message("%zu command lines\n", n);
	assert_true(n >= 60);
}

/* ---- a wrapper process (it ran the tool) is flagged; the tool itself and an interpreter
 * running a script are not */
static void test_wrapper_flag(void **state)
{
	static const struct {
		const char *argv;
		size_t len;
		int wrapper;
	} t[] = {
#define W(a, w) { a, sizeof(a) - 1, w }
		W("/usr/bin/time\0-v\0-o\0t.txt\0samtools\0sort\0x.bam", 1),
		W("env\0A=1\0samtools\0sort\0x.bam", 1),
		W("srun\0-n1\0bwa\0mem\0ref.fa\0r.fq", 1),
		W("samtools\0sort\0x.bam", 0),
		W("python3\0-m\0snakemake\0--snakefile\0S", 0),
		W("nice\0-n\05\0python3\0train.py", 1),
		W("time", 0), /* nothing to run: the wrapper is the tool */
#undef W
	};
	struct tool_id id;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++) {
		assert_int_equal(identify(rules, NULL, t[i].argv, t[i].len, 0, &id), 0);
		if (id.wrapper != t[i].wrapper)
			fail_msg("%s: wrapper %d, want %d (tool %s)", t[i].argv, id.wrapper,
				 t[i].wrapper, id.name);
	}
}

/* ---- argv cut short (TOOL_ARGV_TRUNCATED): a cut name is not used */
static void test_truncated(void **state)
{
	static const struct cmd cut[] = {
		/* the script name was cut: the exe (the script itself, started by #!) names it */
		C("/opt/x/bin/multiqc", "/usr/bin/python3\0/opt/x/bin/mul", "multiqc", "",
		  "python3", 0),
		C("/opt/x/bin/multiqc", "/usr/bin/env\0python3\0/opt/x/bin/mul", "multiqc", "",
		  "python3", 0),
		/* no exe to help: what ran it */
		C(NULL, "python3\0/opt/x/bin/mul", "python3", "", "", 0),
		C(NULL, "samtools\0so", "samtools", "", "", 0),
		C(NULL, "srun\0-n\0001\0sam", "srun", "", "", 1),
		C("/usr/bin/samtools", "sam", "samtools", "", "", 0),
		/* complete words before the cut one still count */
		C(NULL, "samtools\0sort\0-o\0x.b", "samtools", "sort", "", 0),
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cut) / sizeof(*cut); i++)
		check(rules, &cut[i], TOOL_ARGV_TRUNCATED);
	/* without the flag the same words count as whole */
	check(rules, &(struct cmd)C(NULL, "samtools\0so", "samtools", "so", "", 0), 0);
}

/* ---- bounds: a wrapper chain ends, huge and empty inputs, no rules */
static void test_bounds(void **state)
{
	char big[8192], *p = big;
	struct tool_id id, before;
	int i;

	(void)state;
	/* env env env ... samtools: followed at most TOOL_HOPS_MAX steps deep */
	for (i = 0; i < 40; i++)
		p += sprintf(p, "env%c", 0);
	p += sprintf(p, "samtools%csort", 0);
	assert_int_equal(identify(rules, NULL, big, (size_t)(p - big), 0, &id), 0);
	assert_string_equal(id.name, "env");
	/* a short chain is followed to the end */
	check(rules,
	      &(struct cmd)C(NULL, "env\0env\0env\0env\0env\0samtools\0sort", "samtools", "sort",
			     "", 0),
	      0);
	/* 600 arguments: words past WORDS_MAX are ignored */
	p = big;
	p += sprintf(p, "samtools%cmerge", 0);
	for (i = 0; i < 600; i++)
		p += sprintf(p, "%cf%d.bam", 0, i);
	assert_int_equal(identify(rules, NULL, big, (size_t)(p - big), 0, &id), 0);
	assert_string_equal(id.subcommand, "merge");
	/* a 5000-byte program name is cut to the field */
	memset(big, 'a', 5000);
	assert_int_equal(identify(rules, NULL, big, 5000, 0, &id), 0);
	assert_int_equal(strlen(id.name), sizeof(id.name) - 1);
	/* only NULs */
	memset(big, 0, 64);
	memset(&before, 0x5a, sizeof(before));
	id = before;
	assert_int_equal(identify(rules, NULL, big, 64, 0, &id), -EINVAL);
	assert_memory_equal(&id, &before, sizeof(id));
	assert_int_equal(identify(rules, NULL, "", 0, 0, &id), -EINVAL);
	assert_memory_equal(&id, &before, sizeof(id));
	assert_int_equal(tool_identify(rules, NULL, NULL, 0, NULL), -EINVAL);
	assert_int_equal(tool_identify(rules, NULL, NULL, 0, &id), -EINVAL);
	/* no rules at all: the program's own name */
	check(NULL, &(struct cmd)C(NULL, "python3\0x.py", "python3", "", "", 0), 0);
	check(NULL, &(struct cmd)C("/usr/bin/cat", "", "cat", "", "", 0), 0);
	/* a long run of env -S splits ends */
	memset(&id, 0, sizeof(id));
	assert_int_equal(
		identify(rules, NULL, "env\0-S-S -S -S -S -S -S -S -S -S -S -S x\0y", 42, 0, &id),
		0);
	assert_true(id.name[0] != 0);
}

/* ---- every exec of the fixture workflows (strace of real runs, see tests/fixtures/README.md) */
struct expect {
	const char *argv0_prefix; /* first word + second word, matched as a prefix */
	const char *name, *sub;
	int excluded;
};

static const struct expect exec_expect[] = {
	{ "/usr/bin/bwa\tbwa\tmem", "bwa", "mem", 0 },
	{ "/usr/bin/bwa\tbwa\tindex", "bwa", "index", 0 },
	{ "/usr/bin/samtools\tsamtools\tview", "samtools", "view", 0 },
	{ "/usr/bin/samtools\tsamtools\tsort", "samtools", "sort", 0 },
	{ "/usr/bin/samtools\tsamtools\tindex", "samtools", "index", 0 },
	{ "/usr/bin/samtools\tsamtools\tdepth", "samtools", "depth", 0 },
	{ "/usr/bin/bcftools\tbcftools\tmpileup", "bcftools", "mpileup", 0 },
	{ "/usr/bin/bcftools\tbcftools\tcall", "bcftools", "call", 0 },
	{ "/usr/bin/python3\t/usr/bin/python3\t-m\tsnakemake", "snakemake", "", 0 },
	{ "/usr/bin/snakemake\tsnakemake", "snakemake", "", 0 },
	{ "/usr/bin/bash\t/usr/bin/bash\t-c", "bash", "", 1 },
	{ "/bin/sh\t/bin/sh\t-c", "sh", "", 1 },
	{ "/bin/bash\t/bin/bash\t-ue", ".command.sh", "", 1 },
	{ "/usr/bin/tee\ttee", "tee", "", 1 },
	{ "/usr/bin/touch\ttouch", "touch", "", 1 },
	{ "/usr/bin/rm\trm", "rm", "", 1 },
	{ "/usr/bin/ln\tln", "ln", "", 1 },
	{ "/usr/bin/head\thead", "head", "", 1 },
	{ "/usr/bin/cbc\tcbc", "cbc", "", 0 },
};

/* Unescape one execs.txt line into exe and NUL-separated argv. */
static size_t parse_exec_line(char *line, char **exe, char *argv)
{
	char *in = line, *out = argv;
	int field = 0;

	*exe = line;
	for (; *in && *in != '\n'; in++) {
		char c = *in;

		if (c == '\t') {
			if (field++ == 0) {
				*in = 0; /* end of the exe field */
				continue;
			}
			*out++ = 0;
			continue;
		}
		if (c == '\\' && in[1]) {
			in++;
			c = *in == 't' ? '\t' : *in == 'n' ? '\n' : *in;
		}
		if (field == 0)
			continue; /* the exe stays in place, unescaped paths have no '\' */
		*out++ = c;
	}
	*in = 0;
	return (size_t)(out - argv);
}

static void check_execs(const char *rel, int *matched)
{
	char path[4096], line[65536], copy[65536], argv[65536], *exe;
	struct tool_id id;
	size_t len, i, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", srcdir(), rel);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		memcpy(copy, line, sizeof(copy));
		len = parse_exec_line(line, &exe, argv);
		/* a script exec'd by its #! line: the kernel's argv is "interpreter script" */
		if (strstr(exe, "/slurm_script")) {
			int m = snprintf(argv, sizeof(argv), "/bin/sh%c%s", 0, exe);

			assert_int_equal(identify(rules, exe, argv, (size_t)m, 0, &id), 0);
			assert_string_equal(id.name, "slurm_script");
			assert_int_equal(id.excluded, 1);
			n++;
			continue;
		}
		assert_int_equal(identify(rules, exe, argv, len, 0, &id), 0);
		for (i = 0; i < sizeof(exec_expect) / sizeof(*exec_expect); i++) {
			if (strncmp(copy, exec_expect[i].argv0_prefix,
				    strlen(exec_expect[i].argv0_prefix)))
				continue;
			if (strcmp(id.name, exec_expect[i].name) ||
			    strcmp(id.subcommand, exec_expect[i].sub) ||
			    id.excluded != exec_expect[i].excluded)
				fail_msg("%s: %.120s: got %s/%s/%d", rel, copy, id.name,
					 id.subcommand, id.excluded);
			matched[i]++;
			break;
		}
		n++;
	}
	fclose(f);
	assert_true(n > 10);
}

static void test_fixture_execs(void **state)
{
	int matched[sizeof(exec_expect) / sizeof(*exec_expect)] = { 0 };
	size_t i;

	(void)state;
	check_execs("snakemake/slurm/execs.txt", matched);
	check_execs("snakemake/cluster/execs.txt", matched);
	check_execs("nextflow/slurm/execs.txt", matched);
	for (i = 0; i < sizeof(exec_expect) / sizeof(*exec_expect); i++)
		if (!matched[i])
			fail_msg("no exec in the fixtures matched %s", exec_expect[i].argv0_prefix);
}

/* ---- the rules file format: errors name FILE:LINE, the rules in force stay in force */
static void expect_error_n(const char *text, size_t len, int rc, const char *msg)
{
	struct tool_rules *r = (struct tool_rules *)0x1; /* must stay untouched */
	char err[256];
	char *copy = malloc(len + 1);

	assert_non_null(copy);
	memcpy(copy, text, len); /* no NUL: the parser takes a length */
	assert_int_equal(tool_rules_parse(copy, len, "my.rules", &r, err, sizeof(err)), rc);
	assert_ptr_equal(r, (struct tool_rules *)0x1);
	if (strncmp(err, msg, strlen(msg)))
		fail_msg("error <<%s>>, want it to start with <<%s>>", err, msg);
	free(copy);
}

#define expect_error(text, rc, msg) expect_error_n(text, sizeof(text) - 1, rc, msg)

static void test_rules_errors(void **state)
{
	(void)state;
	expect_error("include samtools\nfrobnicate x\n", -EINVAL,
		     "my.rules:2: unknown keyword 'frobnicate'");
	expect_error("# c\n\ninclude\n", -EINVAL, "my.rules:3: include needs at least one name");
	expect_error("include x colour=red\n", -EINVAL,
		     "my.rules:1: unknown option 'colour' for include");
	expect_error("exclude x as=y\n", -EINVAL, "my.rules:1: unknown option 'as' for exclude");
	expect_error("include x as=a as=b\n", -EINVAL, "my.rules:1: option 'as' given twice");
	expect_error("include x subcommand=second\n", -EINVAL,
		     "my.rules:1: subcommand must be 'first' or 'none'");
	expect_error("wrapper x value-options=-a,,-b\n", -EINVAL,
		     "my.rules:1: empty item in the list of 'value-options'");
	expect_error("wrapper x value-options=a\n", -EINVAL,
		     "my.rules:1: 'a' in 'value-options' is not an option");
	expect_error("wrapper x value-options=--mca:9\n", -EINVAL,
		     "my.rules:1: bad option '--mca:9'");
	expect_error("wrapper x skip=99\n", -EINVAL,
		     "my.rules:1: skip must be a number from 0 to 16");
	expect_error("wrapper x skip=-1\n", -EINVAL, "my.rules:1: skip must be a number");
	expect_error("interpreter x options=maybe\n", -EINVAL,
		     "my.rules:1: options must be 'getopt' or 'whole'");
	expect_error("interpreter x positional=file\n", -EINVAL, "my.rules:1: positional must be");
	expect_error("interpreter x attached-options=--long\n", -EINVAL,
		     "my.rules:1: '--long' in 'attached-options'");
	expect_error("include x as=\n", -EINVAL, "my.rules:1: option 'as' needs a value");
	expect_error("include x as=a/b\n", -EINVAL, "my.rules:1: bad tool name 'a/b'");
	expect_error("include x subcommand=first y\n", -EINVAL,
		     "my.rules:1: name 'y' after the options");
	expect_error("include x subcommands=a subcommand=none\n", -EINVAL,
		     "my.rules:1: subcommand=none contradicts");
	expect_error("include a\ninclude b\ninclude c d \\\n   e f \\\n  bogus=1\n", -EINVAL,
		     "my.rules:3: unknown option 'bogus' for include");
	expect_error("include a\ninclude b\0c\n", -EINVAL, "my.rules:2: NUL byte");
}

static void test_rules_limits(void **state)
{
	size_t n = 5000 * 12, i, len = 0;
	char *text = malloc(n), err[256], line[TOOL_RULES_LINE_MAX + 64];
	struct tool_rules *r = NULL;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < TOOL_RULES_MAX + 1; i++)
		len += (size_t)sprintf(text + len, "include t%zu\n", i);
	assert_int_equal(tool_rules_parse(text, len, "big.rules", &r, err, sizeof(err)), -E2BIG);
	assert_null(r);
	assert_string_equal(err, "big.rules:4097: more than 4096 rules");
	/* exactly the maximum is fine */
	len -= strlen("include t4096\n");
	assert_int_equal(tool_rules_parse(text, len, "big.rules", &r, err, sizeof(err)), 0);
	assert_int_equal(tool_rules_count(r), TOOL_RULES_MAX);
	tool_rules_free(r);
	r = NULL;
	free(text);
	memcpy(line, "include ", 8);
	memset(line + 8, 'x', TOOL_RULES_LINE_MAX);
	assert_int_equal(
		tool_rules_parse(line, TOOL_RULES_LINE_MAX + 8, "long.rules", &r, err, sizeof(err)),
		-E2BIG);
	assert_string_equal(err, "long.rules:1: line longer than 4096 bytes");
	assert_null(r);
	/* a NULL err buffer is fine; an empty text is an empty rule set */
	assert_int_equal(tool_rules_parse("bogus\n", 6, "x", &r, NULL, 0), -EINVAL);
	assert_int_equal(tool_rules_parse("", 0, "x", &r, err, sizeof(err)), 0);
	assert_int_equal(tool_rules_count(r), 0);
	tool_rules_free(r);
	assert_int_equal(tool_rules_parse("x", 1, "x", NULL, err, sizeof(err)), -EINVAL);
	tool_rules_free(NULL);
}

/* Reloading a broken file keeps the old rules; a good one replaces them. */
static void test_rules_reload(void **state)
{
	char dir[] = "/tmp/tracer-rules-XXXXXX", path[256], err[512];
	struct tool_rules *live = NULL, *next = NULL;
	struct tool_id id;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/tools.rules", dir);
	f = fopen(path, "w");
	fputs("exclude samtools\n", f);
	fclose(f);
	assert_int_equal(tool_rules_load(path, &live, err, sizeof(err)), 0);
	f = fopen(path, "w");
	fputs("# users edit the file...\ninclude samtools\nwrapper srun value-options=-n\n"
	      "wrapper srun skip=x\n",
	      f);
	fclose(f);
	next = live;
	assert_int_equal(tool_rules_load(path, &next, err, sizeof(err)), -EINVAL);
	assert_ptr_equal(next, live);
	assert_true(strstr(err, "/tools.rules:4: skip must be") != NULL);
	assert_int_equal(strncmp(err, dir, strlen(dir)), 0);
	/* the rules in force still apply */
	assert_int_equal(tool_identify(live, NULL, "samtools\0sort", 13, &id), 0);
	assert_int_equal(id.excluded, 1);
	f = fopen(path, "w");
	fputs("include samtools subcommand=first\n", f);
	fclose(f);
	assert_int_equal(tool_rules_load(path, &next, err, sizeof(err)), 0);
	tool_rules_free(live);
	live = next;
	assert_int_equal(tool_identify(live, NULL, "samtools\0sort", 13, &id), 0);
	assert_int_equal(id.excluded, 0);
	assert_string_equal(id.subcommand, "sort");
	tool_rules_free(live);
	unlink(path);
	rmdir(dir);
	assert_int_equal(tool_rules_load("/nonexistent/tools.rules", &next, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "/nonexistent/tools.rules: No such file or directory");
	assert_int_equal(tool_rules_load(NULL, &next, err, sizeof(err)), -EINVAL);
}

/* Later rules override earlier ones; users append to change the shipped file. */
static void test_rules_override(void **state)
{
	static const char text[] = "exclude sort\n"
				   "include sort\n" /* the last match wins: included */
				   "include mytool subcommand=first\n"
				   "exclude mytool\n" /* excluded, subcommand still named */
				   "exclude *\n"
				   "include bwa\n" /* allowlist: only bwa stays */
				   "wrapper runner skip=1\n"
				   "wrapper runner\n" /* redefined: no skip */
				   "interpreter myint code-options=-x \\\n"
				   "        strip-suffix=.my # comment after a continuation\n";
	struct tool_rules *r = NULL;
	char err[256];

	(void)state;
	assert_int_equal(tool_rules_parse(text, sizeof(text) - 1, "t", &r, err, sizeof(err)), 0);
	check(r, &(struct cmd)C(NULL, "sort\0x", "sort", "", "", 1), 0);
	check(r, &(struct cmd)C(NULL, "mytool\0go", "mytool", "go", "", 1), 0);
	check(r, &(struct cmd)C(NULL, "bwa\0mem", "bwa", "", "", 0), 0);
	check(r, &(struct cmd)C(NULL, "runner\0bwa", "bwa", "", "", 0), 0);
	check(r, &(struct cmd)C(NULL, "myint\0prog.my", "prog", "", "myint", 1), 0);
	check(r, &(struct cmd)C(NULL, "myint\0-x\0code", "myint", "", "", 1), 0);
	tool_rules_free(r);
}

/* Names and patterns of rules of every kind, in a file and in one appended to it: the last
 * matching rule of the kind asked still wins, whichever of the two holds it. */
static void test_rules_appended(void **state)
{
	static const char first[] = "exclude sam*\n"
				    "include samtools\n" /* a later plain name over a pattern */
				    "include srun\n";
	static const char second[] = "exclude samt?ols\n" /* a later pattern over a name */
				     "wrapper srun\n";	  /* the same name, another kind */
	struct tool_rules *r = NULL, *more = NULL;
	char err[256];

	(void)state;
	assert_int_equal(tool_rules_parse(first, sizeof(first) - 1, "a", &r, err, sizeof(err)), 0);
	check(r, &(struct cmd)C(NULL, "samtools\0sort", "samtools", "", "", 0), 0);
	check(r, &(struct cmd)C(NULL, "samba", "samba", "", "", 1), 0);
	check(r, &(struct cmd)C(NULL, "srun\0bwa", "srun", "", "", 0), 0);
	assert_int_equal(tool_rules_parse(second, sizeof(second) - 1, "b", &more, err, sizeof(err)),
			 0);
	assert_int_equal(tool_rules_append(r, more), 0);
	assert_int_equal(tool_rules_count(r), 5);
	check(r, &(struct cmd)C(NULL, "samtools\0sort", "samtools", "", "", 1), 0);
	check(r, &(struct cmd)C(NULL, "samba", "samba", "", "", 1), 0);
	check(r, &(struct cmd)C(NULL, "srun\0bwa\0mem", "bwa", "", "", 0), 0);
	check(r, &(struct cmd)C(NULL, "bwa\0mem", "bwa", "", "", 0), 0);
	tool_rules_free(r);
}

/* The engines' own command lines, as the built-in rules name them, are engines (never a job's
 * Tool beside another, never stalled while their jobs work); the tools they run are not. */
static void test_engines(void **state)
{
	static const struct cmd engine[] = {
		C(NULL, "/usr/bin/python3\0-m\0snakemake\0--slurm-jobstep\0--jobs\0001",
		  "snakemake", "", "python3", 0),
		C(NULL, "/usr/bin/python3\0/usr/bin/snakemake\0--slurm", "snakemake", "", "python3",
		  0),
		C(NULL, "nextflow\0run\0main.nf", "nextflow", "run", "", 0),
		C(NULL, "java\0-jar\0/opt/nextflow-24.04.4-one.jar\0run\0main.nf", "nextflow",
		  "run", "java", 0),
	};
	static const struct cmd tool[] = {
		C(NULL, "bwa\0mem\0ref.fa", "bwa", "", "", 0),
		C(NULL, "/usr/bin/python3\0coverage_matrix.py", "coverage_matrix.py", "", "python3",
		  0),
	};
	struct tool_id id;

	(void)state;
	for (size_t i = 0; i < sizeof(engine) / sizeof(engine[0]); i++) {
		check(rules, &engine[i], 0);
		assert_int_equal(identify(rules, NULL, engine[i].argv, engine[i].len, 0, &id), 0);
		assert_true(engine_tool(id.name));
	}
	for (size_t i = 0; i < sizeof(tool) / sizeof(tool[0]); i++) {
		assert_int_equal(identify(rules, NULL, tool[i].argv, tool[i].len, 0, &id), 0);
		assert_false(engine_tool(id.name));
	}
	/* srun waits for its step whatever it runs; an engine whatever its comm */
	assert_true(works_elsewhere("srun", "bwa"));
	assert_true(works_elsewhere("python3", "snakemake"));
	assert_false(works_elsewhere("python3", "coverage_matrix.py"));
	assert_false(works_elsewhere(NULL, NULL));
	assert_false(engine_tool(NULL));
	assert_false(engine_tool(""));
	assert_false(engine_tool("snakemake2"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_bio),
		cmocka_unit_test(test_interp),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_odd),
		cmocka_unit_test(test_wrapper_flag),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_fixture_execs),
		cmocka_unit_test(test_rules_errors),
		cmocka_unit_test(test_rules_limits),
		cmocka_unit_test(test_rules_reload),
		cmocka_unit_test(test_rules_override),
		cmocka_unit_test(test_rules_appended),
		cmocka_unit_test(test_engines),
	};

	return cmocka_run_group_tests(tests, load_rules, free_rules);
}
