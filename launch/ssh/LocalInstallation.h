// The files of this ClusterLab that a host needs to run tasks when ClusterLab is copied
// there (launch.ssh.copy_binary): the clab program, the engine library it loads, and the
// data sets of the example programs. On the host they go to <data_dir>/clusterlab/bin,
// lib and share/clusterlab/data, the layout of an installation, where the program finds
// its data; LD_LIBRARY_PATH points it to the library. The host needs the same Debian
// release (gRPC, protobuf and the C++ runtime come from its packages).
#pragma once

#include "clab/core/Status.h"

#include <string>
#include <vector>

namespace clab::launch {

struct LocalInstallation {
  std::string program;                  // .../bin/clab
  std::string engine_library;           // .../lib/libclab_engine.so.0
  std::vector<std::string> data_files;  // .../digits.csv.gz, ...

  // `program`: the clab executable to copy. FAILED_PRECONDITION naming what is missing.
  static StatusOr<LocalInstallation> Find(const std::string& program);
};

}  // namespace clab::launch
