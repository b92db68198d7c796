# The Swarm stack file, derived from the Compose project (`docker compose
# config --format json` of base.yml and the cluster's emulators.yml): the
# same services, images, commands, secrets and volumes, with what
# `docker stack deploy` needs instead of what only Compose knows.
# scripts/lib/swarm.bash runs it (docs/swarm.md); its arguments:
#   $project   the stack's name (TESTBED_PROJECT)
#   $manager   the node id of the manager where `make up` runs: db, slurmdbd,
#              slurmctld (and the registry) are pinned to it, with their
#              volumes and the cluster directory they bind-mount
#   $nodes     the swarm's ready nodes' ids (JSON array): emulator k runs on
#              nodes[(k - 1) % n], so the front ends spread over every node
#   $configs   {file: {name, file}}: the cluster directory's files as Swarm
#              configs, which the emulators read on any node
#   $registry  "" (the local images, one node) or 127.0.0.1:<port>: images
#              are pulled from the stack's own registry service
#   $regimage  that registry's image; $port its published port
#   $multihost true when the stack spans several nodes: the emulators then
#              run without the clock page (a file on the manager), on the
#              hosts' own (NTP-synchronised) wall time
def emu_index: ltrimstr("emu") | tonumber;
def drop_nulls: with_entries(select(.value != null));
def cluster_configs:
  [$configs | to_entries[] | {source: (.key | gsub("\\."; "_")),
                              target: ("/etc/testbed/cluster/" + .key)}];

del(.name)
| .version = "3.8"
| .networks = {slurm: {name: ($project + "_slurm"), driver: "overlay", attachable: true}}
# Secrets stay files of .state/ on the manager: stack deploy makes Swarm
# secrets of them (<project>_munge_key, <project>_db_password).
| .secrets |= with_entries(.value |= {name: .name, file: .file})
| .configs = ($configs | with_entries({key: (.key | gsub("\\."; "_")), value: .value}))
| .volumes |= with_entries(.value |= {name: .name})
| .services |= with_entries(
    .key as $svc
    | .value |= (
        del(.depends_on)
        | drop_nulls
        # Swarm puts a secret's target under /run/secrets/ itself.
        | (.secrets // []) |= map(.target |= (split("/") | last))
        | (.volumes // []) |= map(del(.bind) | del(.volume) | drop_nulls)
        # dnsrr: a service's name resolves to its task's address, as
        # under Compose; no virtual IP, so no need of the kernel's IPVS
        # (which this workplace's kernel lacks), and one task per
        # service has nothing to balance.
        | .deploy = {restart_policy: {condition: "any", delay: "2s"}, endpoint_mode: "dnsrr"}
        | if ($svc | startswith("emu")) then
            # The cluster directory as configs (no bind mount: another
            # host has no such directory); the clock page only on one node.
            .configs = cluster_configs
            | .volumes |= map(select(.target != "/etc/testbed/cluster"))
            | (if $multihost then
                 .volumes |= map(select(.target != "/run/testbed-vclock"))
                 | .environment.TB_VCLOCK_FILE = ""
               else . end)
            | .deploy.placement = {constraints:
                ["node.id == " + $nodes[(($svc | emu_index) - 1) % ($nodes | length)]]}
          else
            .deploy.placement = {constraints: ["node.id == " + $manager]}
          end
        | if $registry != "" then .image = ($registry + "/" + .image) else . end
        | if (.volumes | length) == 0 then del(.volumes) else . end
      )
  )
| if $registry != "" then
    .volumes.registry = {name: ($project + "_registry")}
    | .services.registry = {
        image: $regimage,
        networks: ["slurm"],
        # Several nodes: the routing mesh publishes the port on every
        # node (it needs IPVS, the ip_vs module of any stock Linux
        # kernel). One node: published on the manager itself (host mode,
        # no IPVS), where the same 127.0.0.1:<port> is pushed to and
        # pulled from.
        ports: [{target: 5000, published: ($port | tonumber), protocol: "tcp",
                 mode: (if $multihost then "ingress" else "host" end)}],
        volumes: [{type: "volume", source: "registry", target: "/var/lib/docker-registry"}],
        deploy: {restart_policy: {condition: "any", delay: "2s"},
                 placement: {constraints: ["node.id == " + $manager]}}}
  else . end
