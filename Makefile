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
# Every parameter of workloads/params.tsv (the one declaration of each)
# reaches the scripts.
export $(filter-out CMD,$(shell awk -F'\t' '!/^\#/ && NF == 8 {print $$1}' workloads/params.tsv))
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
.PHONY: help setup up down clean status logs shell exec config images test bench lint alloc policies fuzz replay simulate tofa-faults report compare fetch-logs experiment

help: ## list targets and parameters
	@echo "HPC scheduling testbed: real Slurm 24.11 on emulated supercomputers."
	@echo
	@echo "Targets:"
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
		awk -F':.*## ' '{printf "  make %-9s %s\n", $$1, $$2}'
	@echo
	@echo
	@awk -v policies="$$(cut -f1 "$${TB_BUILD:-build/c}/policies.tsv" 2>/dev/null | paste -sd' ')" \
		-v clusters="$$(ls emulated-clusters/*.cluster | xargs -n1 basename | sed 's/.cluster//' | paste -sd' ')" \
		-f scripts/lib/params_help.awk workloads/params.tsv

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

simulate: ## LOG on the emulation's twin (tb-sim) as CLUSTER under POLICY, in seconds: a replay's run directory, engine sim; RUN=<emulation run>: that run's plan on the twin, compared (validation.md)
	@$(TESTBED) simulate
tofa-faults: ## TOFA's faults: TOFA_BATCHES batches of TOFA_INSTANCES instances of TOFA_APP on the running torus, TOFA_NF nodes at TOFA_PF
	@$(TESTBED) tofa-faults

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

bench: ## benchmarks (BENCH=alloc|treematch|up|decision|submit|sim|clock|window|faults|all): decision time, TreeMatch against job size, start-up, submission rate, the twin's speed, virtual clock, the saturated window with event jumps, fault detection
	@$(TESTBED) bench

# -a: scripts/testbed's pieces (scripts/lib/*.bash) are checked where it
# sources them (-x), beside the settings the others make; checked alone,
# each would be warned of variables it sets for another piece.
lint: ## shellcheck the scripts
	@$(TESTBED) in-tools shellcheck -a -x scripts/testbed scripts/setup scripts/experiment tests/vclock/run.sh tests/vclock/libfaketime.sh images/base.sh images/*/entrypoint.sh .ci/run
