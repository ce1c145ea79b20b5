# Two "hosts" made of network namespaces on this machine, joined by a veth pair, for MPI over
# TCP between them with one image on each (sourced by scripts/two-hosts and bench/run-all).
# Two hosts share no memory, so every access to the other image goes through MPI. Needs root
# and iproute2.
#
#   host pgas-a  10.77.0.1/24  <-- veth pair -->  10.77.0.2/24  host pgas-b
#
# mpirun starts in pgas-a; a small launcher agent takes the place of ssh and starts the remote
# daemon inside the other namespace, with its own host name (a UTS namespace), so Open MPI sees
# two nodes and uses TCP (btl tcp,self; one-sided through osc/pt2pt over it).
#
#   two_hosts_up            makes the namespaces (and removes them again when the shell exits)
#   two_hosts_run CMD...    runs CMD under mpirun, one image per host
#   two_hosts_run_two_each CMD...
#                           runs CMD with two images per host (four in all): the two of a host
#                           share its memory (osc/sm beside osc/pt2pt, btl vader beside tcp), as
#                           the images of one node of a cluster do
#   two_hosts_launch IMAGES CMD...
#                           the same with 1 to 4 images (scripts/lib/two-hosts-mpiexec's launch)
#   two_hosts_launch_mpich IMAGES CMD...
#                           the same with MPICH's launcher (Hydra)
#   two_hosts_down          removes them

two_hosts_work=""

two_hosts_down() {
  ip netns del pgas-a 2>/dev/null || true
  ip netns del pgas-b 2>/dev/null || true
  if [ -n "$two_hosts_work" ]; then rm -rf "$two_hosts_work"; fi
  two_hosts_work=""
}

two_hosts_up() {
  [ "$(id -u)" -eq 0 ] || { echo "two hosts: run as root (it creates network namespaces)" >&2; return 2; }
  two_hosts_down
  trap two_hosts_down EXIT
  two_hosts_work=$(mktemp -d)
  ip netns add pgas-a
  ip netns add pgas-b
  ip link add pgas-va type veth peer name pgas-vb
  ip link set pgas-va netns pgas-a
  ip link set pgas-vb netns pgas-b
  ip -n pgas-a addr add 10.77.0.1/24 dev pgas-va
  ip -n pgas-b addr add 10.77.0.2/24 dev pgas-vb
  for ns in pgas-a pgas-b; do
    ip -n "$ns" link set lo up
  done
  ip -n pgas-a link set pgas-va up
  ip -n pgas-b link set pgas-vb up
  printf '10.77.0.1 slots=1\n10.77.0.2 slots=1\n' > "$two_hosts_work/hosts"
  printf '10.77.0.1 slots=2\n10.77.0.2 slots=2\n' > "$two_hosts_work/hosts_two_each"
  # The launcher agent: "agent HOST COMMAND..." runs COMMAND in HOST's namespace, named HOST.
  cat > "$two_hosts_work/agent" <<'AGENT'
#!/bin/sh
host=$1
shift
case "$host" in
  10.77.0.1) ns=pgas-a; name=pgas-a ;;
  10.77.0.2) ns=pgas-b; name=pgas-b ;;
  *) echo "agent: unknown host $host" >&2; exit 1 ;;
esac
exec ip netns exec "$ns" unshare --uts sh -c "hostname $name; $*"
AGENT
  chmod +x "$two_hosts_work/agent"
  # MPICH's Hydra calls its launcher as ssh, with ssh's options before the host: dropped, the
  # rest is the agent's "HOST COMMAND...".
  cat > "$two_hosts_work/ssh" <<SSH
#!/bin/sh
while [ \$# -gt 0 ]; do
  case "\$1" in
    -*) shift ;;
    *) break ;;
  esac
done
exec "$two_hosts_work/agent" "\$@"
SSH
  chmod +x "$two_hosts_work/ssh"
}

# --bind-to none: each "host" would bind its one image to its core 0, and both are this machine's
# core 0: the two images would share one core and take turns in scheduler ticks (an MPI ping-pong
# measured 8 ms a round trip that way, 14 us unbound; TCP between the namespaces takes 16 us).
two_hosts_run() {
  ip netns exec pgas-a unshare --uts sh -c "hostname pgas-a; exec mpirun --hostfile $two_hosts_work/hosts -n 2 \
      --bind-to none \
      --mca plm_rsh_agent $two_hosts_work/agent --mca btl tcp,self --mca pml ob1 --mca osc pt2pt \
      --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24 $*"
}

# two_hosts_launch IMAGES CMD...: CMD under mpirun with IMAGES images, one on each host up to
# two, then two on each, the first host's filled first (as a launcher fills a node's slots); the
# images of a host reach each other through its memory (osc/sm beside osc/pt2pt, btl vader beside
# tcp), as the images of one node of a cluster do.
two_hosts_launch() {
  local images=$1 hostfile=hosts
  shift
  [ "$images" -le 2 ] || hostfile=hosts_two_each
  ip netns exec pgas-a unshare --uts sh -c 'hostname pgas-a; exec "$@"' sh \
    mpirun --hostfile "$two_hosts_work/$hostfile" -n "$images" --bind-to none \
    --mca plm_rsh_agent "$two_hosts_work/agent" --mca btl vader,tcp,self --mca pml ob1 \
    --mca osc sm,pt2pt --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24 \
    "$@"
}

# two_hosts_launch_mpich IMAGES CMD...: the same placement with MPICH's mpiexec (Hydra), which
# starts its proxy on the other host through the agent. MPICH counts the images of a host as a
# node, as pgas does. UCX, under MPICH's ch4, would reach the other host's processes through
# this machine's shared memory, which two hosts never share: with one image a host only TCP
# (UCX_TLS=tcp,self), unless the caller chose the transports. With two on a host UCX keeps its
# own choice: MPICH 4.0's MPI_Finalize waits in a PMI barrier while a peer's TCP disconnect
# still needs it (removed in later MPICH: pmodels/mpich#6596, 2023), so over TCP alone 3- and
# 4-image runs hung in it after their tests passed (4 of 42).
two_hosts_launch_mpich() {
  local images=$1 hosts=10.77.0.1,10.77.0.2 transports=${UCX_TLS:-tcp,self}
  shift
  if [ "$images" -gt 2 ]; then
    hosts=10.77.0.1:2,10.77.0.2:2
    transports=${UCX_TLS:-all}
  fi
  UCX_TLS=$transports ip netns exec pgas-a unshare --uts sh -c 'hostname pgas-a; exec "$@"' sh \
    mpiexec.mpich -hosts "$hosts" -launcher ssh -launcher-exec "$two_hosts_work/ssh" -n "$images" "$@"
}

two_hosts_run_two_each() {
  two_hosts_launch 4 "$@"
}
