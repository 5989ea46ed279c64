#!/usr/bin/env bash
# A relocatable copy of Debian 12's Open MPI 4.1.4 runtime (mpirun, orted,
# the libraries, the MCA and PMIx plugins a single-node run needs, help
# texts), for a GPU machine that has no Open MPI installed: the MPI steps of
# bench/run-huge.sh run there with it.
#
#   bash bench/mpi-bundle/make-bundle.sh .devbin/mpi     # here, with openmpi-bin installed
#   source .devbin/mpi/env.sh && bash bench/run-huge.sh ... mpi-strong   # there
#
# Left out: the plugins that pull libraries not bundled (UCX, OFI, verbs,
# PSM, OpenSHMEM, netlink, monitoring). env.sh (copied next to the bundle)
# points Open MPI and PMIx at it and runs the ranks on one node (plm
# isolated: no ssh), over shared memory and loopback TCP.
set -euo pipefail
B=${1:?target dir}
S=/usr/lib/x86_64-linux-gnu
P=$S/openmpi/lib/openmpi3
rm -rf "$B/bin" "$B/lib" "$B/share" "$B/etc" "$B/pmix"
mkdir -p "$B/bin" "$B/lib" "$B/lib/x86_64-linux-gnu/openmpi/lib/openmpi3" "$B/share/openmpi" "$B/etc" \
         "$B/pmix/lib/pmix" "$B/pmix/share/pmix"
cpx() { cp -L "$1" "$2"; chmod u+w "$2"; strip --strip-unneeded "$2" 2>/dev/null || true; }
# executables (real files, no symlinks)
cpx /usr/bin/orterun "$B/bin/orterun"
cpx /usr/bin/orterun "$B/bin/mpirun"
cpx /usr/bin/orted "$B/bin/orted"
cpx /usr/bin/ompi_info "$B/bin/ompi_info"
# shared libraries, named by SONAME
for l in libmpi.so.40 libmpi_cxx.so.40 libopen-pal.so.40 libopen-rte.so.40 \
         libmca_common_ompio.so.41 libmca_common_sm.so.40 \
         libhwloc.so.15 libudev.so.1 libevent_core-2.1.so.7 libevent_pthreads-2.1.so.7 \
         libpmix.so.2 libmunge.so.2; do
  cpx "$S/$l" "$B/lib/$l"
done
# MCA plugins: everything except oshmem, ucx, ofi, verbs/openib, psm, psm2, netlink, monitoring
for f in "$P"/mca_*.so; do
  n=$(basename "$f")
  case "$n" in
    mca_atomic_*|mca_memheap_*|mca_scoll_*|mca_spml_*|mca_sshmem_*) continue;;
    *_ucx.so|*_ofi.so|mca_btl_openib.so|mca_mtl_psm.so|mca_mtl_psm2.so) continue;;
    mca_reachable_netlink.so|*_monitoring.so) continue;;
  esac
  cpx "$f" "$B/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/$n"
done
# help texts and params
cp /usr/share/openmpi/help-*.txt "$B/share/openmpi/"
cp /etc/openmpi/openmpi-mca-params.conf /etc/openmpi/openmpi-default-hostfile "$B/etc/"
# PMIx plugins and help texts
for f in $S/pmix2/lib/pmix/*.so; do cpx "$f" "$B/pmix/lib/pmix/$(basename "$f")"; done
cp $S/pmix2/share/pmix/help-*.txt "$B/pmix/share/pmix/"
cp "$(dirname "$0")/env.sh" "$B/env.sh"
echo "bundle at $B: $(du -sh "$B" | cut -f1)"
