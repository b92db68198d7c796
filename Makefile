# The one entry point. Targets are thin: the logic is in scripts/ and the
# programs they call. `make help` lists everything.
SHELL := bash
TESTBED := scripts/testbed

CLUSTER ?=
POLICY ?=
FRONTENDS ?=
EMULATORS ?=
CMD ?=
SCENARIO ?=
SERVICE ?=
export CLUSTER POLICY OPTIONS FRONTENDS EMULATORS SERVICE WORKLOADS_DIR TOPOLOGIES_DIR READY_TIMEOUT BENCH
export DRY_RUN
export ALLOW_BUSY AUTO_RECOVER RERUN_FAULTED TA_SPEEDUP LOG SPEEDUP JOBS FIRST SEED COMM PATTERN RATIO SPARSITY GRANULARITY SCALE RUNTIME_FACTOR PREFILL INDIVIDUAL OCCUPY STRICT RESUME LEAD LIMIT_GRID RESULTS_DIR LOGS FROM FORCE
export EXP PARALLEL POLICIES PATTERNS BASELINE LOADS TA_SPEEDUPS RATIOS CLOCK IDLE_JUMPS LAUNCH_GUARD FULL
# CMD goes to the script untouched: no make expansion of $, no shell
# re-quoting, so quotes and $(...) reach the container as typed.
TESTBED_CMD := $(value CMD)
export TESTBED_CMD
# Relative paths a user gives (LOG, SCENARIO, ...) are relative to where
# make was called: `make -C <clone>` keeps the caller's PWD in the
# environment while CURDIR is the clone.
TESTBED_CWD := $(or $(PWD),$(CURDIR))
export TESTBED_CWD

.DEFAULT_GOAL := help
.PHONY: help setup up down clean status logs shell exec config images test bench lint alloc policies fuzz replay report compare fetch-logs experiment

help: ## list targets and parameters
	@echo "HPC scheduling testbed: real Slurm 24.11 on emulated supercomputers."
	@echo
	@echo "Targets:"
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
		awk -F':.*## ' '{printf "  make %-9s %s\n", $$1, $$2}'
	@echo
	@echo "Parameters:"
	@echo "  DRY_RUN=1         for 'make setup': print the archive and the packages, install nothing"
	@echo "  CLUSTER=<name>    one of: $$(ls emulated-clusters/*.cluster | xargs -n1 basename | sed 's/.cluster//' | tr '\n' ' ')"
	@echo "  FRONTENDS=<n>     front-end slurmd daemons (default: the machine definition's)"
	@echo "  EMULATORS=<n>     containers the front ends are spread over"
	@names=$$(cut -f1 "$${TB_BUILD:-build/c}/policies.tsv" 2>/dev/null | paste -sd' '); \
		printf '%s\n' "$${names:-a name of the policy registry}" | fold -s -w 60 | \
		sed 's/ *$$//; 1s/^/  POLICY=<name>     /; 2,$$s/^/                    /'
	@echo "                    (make policies: each one's family, traits and paper;"
	@echo "                    make up: recorded in slurm.conf;"
	@echo "                    make alloc: one policy, or all)"
	@echo "  OPTIONS='<words>' for 'make up': the library's named readings of the papers, e.g."
	@echo "                    'eq3=path fit=quiet' (plugins/lib/options.h; default: the papers' forms)"
	@echo "  CMD='<command>'   for 'make exec'"
	@echo "  SCENARIO=<file>   for 'make alloc' (examples/*.scenario)"
	@echo "  SERVICE=<name>    for 'make logs' (db, slurmdbd, slurmctld, emu1, ...)"
	@echo "  TOPOLOGIES_DIR    real topology files (default ../shared/topologies)"
	@echo "  WORKLOADS_DIR     job logs (default workloads/logs once 'make fetch-logs' filled it,"
	@echo "                    else ../shared/workloads)"
	@echo "  LOGS='<names>'    for 'make fetch-logs': some of theta mira intrepid curie lublin"
	@echo "  FROM=<dir>        for 'make fetch-logs': copy from a local mirror instead of downloading"
	@echo "  READY_TIMEOUT=<s> how long 'make up' waits for all nodes to be idle (600)"
	@echo "  TESTBED_PROJECT   another name runs a second, independent testbed (default testbed)"
	@echo "  BENCH=<which>     for 'make bench': alloc, treematch (TreeMatch against job size: seconds),"
	@echo "                    up, decision, submit, clock (the virtual clock: ~25 min),"
	@echo "                    faults (detection and recovery times: ~10 min) or all (default; not clock, faults)"
	@echo "Replay (make replay):"
	@echo "  LOG=<name|path>   theta mira intrepid curie lublin, or a file (SWF, six-column, sacct.json)"
	@echo "  SPEEDUP=<s>       how much faster than the log (default 1000; 100 with CLOCK=scaled)"
	@echo "  JOBS=<n> (1000) FIRST=<k> (0)  the window"
	@echo "  CLOCK=<c>         virtual (default): every Slurm process on one clock SPEEDUP times"
	@echo "                    faster than wall time, the log in its own seconds, idle time jumped"
	@echo "                    (IDLE_JUMPS=0: not), slowed to rate 1 while launches lag"
	@echo "                    (LAUNCH_GUARD=0: not); scaled: log times divided by SPEEDUP"
	@echo "  SEED=<n> COMM=<f> PATTERN=<rd|rhvd|binomial|ring|cmc|mix> RATIO=<f>  generated profiles"
	@echo "  SPARSITY=<f>      give communicating jobs random node x node matrices, this share of"
	@echo "                    pairs silent (default: no matrices); hop-bytes reach sacct and the report"
	@echo "  GRANULARITY=core  jobs ask for one core per rank (partition cores, CR_Core; matrices"
	@echo "                    rank x rank): the TreeMatch policies then choose cores (default: node)"
	@echo "  SCALE=<d>         divide job sizes by d (default: 4 for mira and intrepid, else 1)"
	@echo "  RUNTIME_FACTOR=<f> multiply every job's runtime and requested time (0.5 halves them,"
	@echo "                    as the TreeMatch paper's workload; default: the log's)"
	@echo "  PREFILL=<f>       first fill this share of the nodes (1: all) with the jobs just before"
	@echo "                    the window, compute jobs placed as default places them; the metrics"
	@echo "                    leave them out (needs FIRST > 0)"
	@echo "  INDIVIDUAL=<n>    the ICPP-W paper's individual runs: occupy OCCUPY of the nodes (0.5)"
	@echo "                    with the window's first jobs, placed as default1905 would, then run n"
	@echo "                    jobs drawn with SEED one at a time, each from that same state"
	@echo "  LIMIT_GRID=<s>    round time limits up to this many log seconds (6000)"
	@echo "  STRICT=1          refuse a window with jobs larger than the cluster"
	@echo "  RESUME=<run-id>   continue an interrupted replay (or the run directory's path)"
	@echo "  TA_SPEEDUP=<s>    SC18's runtime model under POLICY=isolated: 5, 10 or 20 (% faster for"
	@echo "                    jobs of more than 4 nodes), v1 or v2 (ranges by size; see README)"
	@echo "  AUTO_RECOVER=1    restart a service that dies during the replay (else submissions pause;"
	@echo "                    experiments default to 1, AUTO_RECOVER=0 turns it off)"
	@echo "  RERUN_FAULTED=1   with RESUME=<run-id>: submit again, as new jobs at their log times,"
	@echo "                    the run's jobs a fault hit (the report then counts the reruns)"
	@echo "  ALLOW_BUSY=1      replay although the cluster has other jobs (refused otherwise)"
	@echo "  RESULTS_DIR=<dir> where runs are written and read (default results/)"
	@echo "  FORCE=1           make compare: compare runs that differ in more than the policy"
	@echo "                    (SEED, COMM, ..., cluster, window), with a warning"
	@echo "Experiments (make experiment; alone it lists the definitions in experiments/):"
	@echo "  EXP=<name>        run one: its replays, each on its own testbed, then table.md"
	@echo "                    (results/experiments/<id>/); JOBS= SPEEDUP= SCALE= COMM= SEED= ..."
	@echo "                    CLUSTER= POLICIES='...' PATTERNS='...' LOGS='...' (some of the"
	@echo "                    definition's) BASELINE= CLOCK= override the"
	@echo "                    definition; sc18 kinds also LOADS='1 2' TA_SPEEDUPS='none v1',"
	@echo "                    treematch kinds RATIOS='1/3 1/2'; OPTIONS= for every run's make up"
	@echo "  FULL=1            the whole definition, not the part its select lines pick for a"
	@echo "                    plain run (sc18-cab: Curie x1, TO TA V1 V2, 43 min)"
	@echo "  PARALLEL=<n>      replays at once (default: the definition's, else 4)"
	@echo "  RESUME=<exp-id>   continue an interrupted experiment"

setup: ## install and start Docker, Compose v2, buildx, mmdebstrap on this host (DRY_RUN=1: only say what)
	@scripts/setup

up: ## build missing images, generate the config, start CLUSTER, wait until every node is idle
	@$(TESTBED) up "$(CLUSTER)"

down: ## stop the cluster, keeping job history and controller state
	@$(TESTBED) down

clean: ## stop the cluster and remove its volumes, generated config and secrets
	@$(TESTBED) clean

status: ## the cluster that is up, its policy, containers, nodes and jobs
	@$(TESTBED) status

logs: ## recent daemon logs (SERVICE=<name> for one)
	@$(TESTBED) logs

shell: ## an interactive shell in the controller container
	@$(TESTBED) shell

exec: ## run CMD in the controller container; exits with its status
	@$(TESTBED) exec

config: ## only generate build/clusters/CLUSTER/ (slurm.conf, topology.conf, topology.json)
	@$(TESTBED) config "$(CLUSTER)"

fetch-logs: ## download the public job logs into WORKLOADS_DIR (default workloads/logs), sha256-checked
	@$(TESTBED) fetch-logs

replay: ## replay LOG on the running cluster under POLICY (RESUME=<run-id> continues one)
	@$(TESTBED) replay

report: ## metrics, jobs.csv, summary.md and plots of RUN=<run-id> into results/<run-id>/
	@$(TESTBED) report "$(RUN)"

compare: ## one table and plots of RUNS="<id> <id> ..." against the baseline run (default1905, else default, else firstfit; one policy only: the first)
	@$(TESTBED) compare "$(RUNS)"

experiment: ## EXP=<name>: the replays of experiments/<name>.exp and a table beside the paper's; alone: list them
	@$(TESTBED) experiment

alloc: ## run the allocation policies on SCENARIO (POLICY=<p>, default all); see examples/
	@$(TESTBED) alloc "$(SCENARIO)" "$(or $(POLICY),all)"

policies: ## the policy registry: each policy's name (POLICY=), family, traits and paper
	@$(TESTBED) policies

fuzz: ## fuzz the scenario, matrix and topology parsers (FUZZ_SECONDS each, default 60)
	@$(TESTBED) in-tools make -s -C plugins fuzz FUZZ_SECONDS=$(or $(FUZZ_SECONDS),60)

images: ## (re)build all images (cached layers make this quick)
	@$(TESTBED) images

test: ## run every test suite (bats and C unit tests) inside the tools image
	@$(TESTBED) test

bench: ## benchmarks (BENCH=alloc|treematch|up|decision|submit|clock|faults|all): decision time, TreeMatch against job size, start-up, submission rate, virtual clock, fault detection
	@$(TESTBED) bench

# -a: scripts/testbed's pieces (scripts/lib/*.bash) are checked where it
# sources them (-x), beside the settings the others make; checked alone,
# each would be warned of variables it sets for another piece.
lint: ## shellcheck the scripts
	@$(TESTBED) in-tools shellcheck -a -x scripts/testbed scripts/setup scripts/experiment tests/vclock/run.sh tests/vclock/libfaketime.sh images/base.sh images/*/entrypoint.sh .ci/run
