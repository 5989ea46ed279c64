# Source this file (bash): makes the bundled Open MPI 4.1.4 (Debian 12 build,
# external PMIx 4.2.2) usable from wherever this folder lies.
#   . .devbin/mpi/env.sh ; $MPIRUN --allow-run-as-root --oversubscribe -n 4 prog args
_b=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)
export GLCCL_MPI_BUNDLE=$_b
# Open MPI relocation: Debian's layout below the prefix
#   libdir=$P/lib/x86_64-linux-gnu/openmpi/lib, pkglibdir=$libdir/openmpi3,
#   pkgdatadir=$P/share/openmpi; sysconfdir is absolute (/etc/openmpi) -> overridden.
export OPAL_PREFIX=$_b
export OPAL_EXEC_PREFIX=$_b
export OPAL_BINDIR=$_b/bin
export OPAL_LIBDIR=$_b/lib/x86_64-linux-gnu/openmpi/lib
export OPAL_PKGLIBDIR=$_b/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
export OPAL_DATADIR=$_b/share
export OPAL_PKGDATADIR=$_b/share/openmpi
export OPAL_SYSCONFDIR=$_b/etc
export OMPI_MCA_mca_base_component_path=$_b/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
export OMPI_MCA_mca_base_param_files=$_b/etc/openmpi-mca-params.conf
# PMIx relocation (its conf in /usr/lib/x86_64-linux-gnu/pmix2/share is not used)
export PMIX_PREFIX=$_b/pmix
export PMIX_INSTALL_PREFIX=$_b/pmix
export PMIX_EXEC_PREFIX=$_b/pmix
export PMIX_LIBDIR=$_b/pmix/lib
export PMIX_PKGLIBDIR=$_b/pmix/lib/pmix
export PMIX_DATADIR=$_b/pmix/share
export PMIX_PKGDATADIR=$_b/pmix/share/pmix
export PMIX_SYSCONFDIR=$_b/pmix/share
export PMIX_MCA_mca_base_component_path=$_b/pmix/lib/pmix
# components: only what is bundled; single node, shared memory + tcp
export OMPI_MCA_plm=isolated          # single node: launch ranks locally, no ssh/rsh needed
export OMPI_MCA_pml=ob1
export OMPI_MCA_btl=self,vader,tcp
export OMPI_MCA_mtl=^ofi,psm,psm2
export OMPI_MCA_osc=^ucx,pt2pt
export OMPI_MCA_btl_base_warn_component_unused=0
export OMPI_MCA_btl_vader_single_copy_mechanism=none   # no CMA/ptrace needed in containers
export OMPI_MCA_btl_tcp_if_include=lo
export OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PATH=$_b/bin:$PATH
# ../lib: glccl's own non-system libraries (libtiff, libpng, ...), when present
_l=$_b/lib
[ -d "$_b/../lib" ] && _l=$_l:$(cd "$_b/../lib" && pwd)
export LD_LIBRARY_PATH=$_l${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export MPIRUN="$_b/bin/mpirun -x LD_LIBRARY_PATH -x PATH"
unset _b _l
