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
export CLUSTER POLICY FRONTENDS EMULATORS SERVICE WORKLOADS_DIR TOPOLOGIES_DIR READY_TIMEOUT BENCH
export LOG SPEEDUP JOBS FIRST SEED COMM PATTERN RATIO SPARSITY SCALE STRICT RESUME LEAD LIMIT_GRID RESULTS_DIR LOGS FROM
export EXP PARALLEL POLICIES PATTERNS BASELINE
# CMD goes to the script untouched: no make expansion of $, no shell
# re-quoting, so quotes and $(...) reach the container as typed.
TESTBED_CMD := $(value CMD)
export TESTBED_CMD

.DEFAULT_GOAL := help
.PHONY: help up down clean status logs shell exec config images test bench lint alloc fuzz replay report compare fetch-logs experiment

help: ## list targets and parameters
	@echo "HPC scheduling testbed: real Slurm 24.11 on emulated supercomputers."
	@echo
	@echo "Targets:"
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
		awk -F':.*## ' '{printf "  make %-9s %s\n", $$1, $$2}'
	@echo
	@echo "Parameters:"
	@echo "  CLUSTER=<name>    one of: $$(ls emulated-clusters/*.cluster | xargs -n1 basename | sed 's/.cluster//' | tr '\n' ' ')"
	@echo "  FRONTENDS=<n>     front-end slurmd daemons (default: the machine definition's)"
	@echo "  EMULATORS=<n>     containers the front ends are spread over"
	@echo "  POLICY=<name>     default, greedy, balanced or adaptive (make up: recorded in slurm.conf;"
	@echo "                    make alloc: one policy, or all)"
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
	@echo "  BENCH=<which>     for 'make bench': alloc, up, decision, submit or all (default all)"
	@echo "Replay (make replay):"
	@echo "  LOG=<name|path>   theta mira intrepid curie lublin, or a file (SWF, six-column, sacct.json)"
	@echo "  SPEEDUP=<s>       time compression (default 100); JOBS=<n> (1000) FIRST=<k> (0)"
	@echo "  SEED=<n> COMM=<f> PATTERN=<rd|rhvd|binomial|ring|cmc|mix> RATIO=<f>  generated profiles"
	@echo "  SPARSITY=<f>      give communicating jobs random node x node matrices, this share of"
	@echo "                    pairs silent (default: no matrices); hop-bytes reach sacct and the report"
	@echo "  SCALE=<d>         divide job sizes by d (default: 4 for mira and intrepid, else 1)"
	@echo "  LIMIT_GRID=<s>    round time limits up to this many log seconds (6000)"
	@echo "  STRICT=1          refuse a window with jobs larger than the cluster"
	@echo "  RESUME=<run-id>   continue an interrupted replay"
	@echo "  RESULTS_DIR=<dir> where runs are written and read (default results/)"
	@echo "Experiments (make experiment; alone it lists the definitions in experiments/):"
	@echo "  EXP=<name>        run one: its replays, each on its own testbed, then table.md"
	@echo "                    (results/experiments/<id>/); JOBS= SPEEDUP= SCALE= COMM= SEED= ..."
	@echo "                    CLUSTER= POLICIES='...' PATTERNS='...' BASELINE= override the definition"
	@echo "  PARALLEL=<n>      replays at once (default: the definition's, else 4)"
	@echo "  RESUME=<exp-id>   continue an interrupted experiment"

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

compare: ## one table and plots of RUNS="<id> <id> ..." against the default run (one policy only: the first)
	@$(TESTBED) compare "$(RUNS)"

experiment: ## EXP=<name>: the replays of experiments/<name>.exp and a table beside the paper's; alone: list them
	@$(TESTBED) experiment

alloc: ## run the allocation policies on SCENARIO (POLICY=<p>, default all); see examples/
	@$(TESTBED) alloc "$(SCENARIO)" "$(or $(POLICY),all)"

fuzz: ## fuzz the scenario, matrix and topology parsers (FUZZ_SECONDS each, default 60)
	@$(TESTBED) in-tools make -s -C plugins fuzz FUZZ_SECONDS=$(or $(FUZZ_SECONDS),60)

images: ## (re)build all images (cached layers make this quick)
	@$(TESTBED) images

test: ## run every test suite (bats and C unit tests) inside the tools image
	@$(TESTBED) test

bench: ## benchmarks (BENCH=alloc|up|decision|submit|all): library and in-Slurm decision time, start-up, submission rate
	@$(TESTBED) bench

lint: ## shellcheck the scripts
	@$(TESTBED) in-tools shellcheck -x scripts/testbed images/base.sh images/*/entrypoint.sh .ci/run
