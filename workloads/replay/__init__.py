"""Replay a job log on the running emulated cluster.

Every job of the window is submitted with `--begin` set to its compressed
submit time (t0 + submit / SPEEDUP), a little ahead of that time (LEAD
seconds), rather than at that moment: the submitter then never has to keep
pace with bursts, and Slurm makes each job eligible at its own time (BeginTime
has one-second resolution, so a job becomes eligible within 1 s of it).

Jobs are sleeps of T_scaled / SPEEDUP seconds, T_scaled being the runtime
the allocation plugin computed from the log runtime and the cost of the
nodes the job got (Eq. 7). Under `default1905`, Eq. 7's denominator, T_scaled
is the log runtime.

Results go to results/<run-id>/: plan.tsv (the window as replayed),
submitted.tsv (log id -> Slurm id, fsynced after each job, which is what
RESUME continues from), rerun.tsv (log id, attempt, Slurm id of the jobs
RERUN_FAULTED=1 ran again), sacct.json, manifest.json and replay.log.

Run as python3 -m workloads.replay (make replay). Modules, in the order a
replay uses them: cli (arguments, the run from plan to sacct.json), plan and
matrix (the job plan), cluster (the running cluster's facts), run_dir (the
run's files), slurm_io (docker exec, tb-submit, squeue, sacct), pacing (the
clock, submission timing, the launch guard's inputs), driver (the replay
loop), resume and reruns (RESUME, RERUN_FAULTED=1), progress, errors.
"""
