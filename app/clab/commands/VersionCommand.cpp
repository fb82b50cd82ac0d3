#include "commands/VersionCommand.h"

#include "clab/Version.h"

#include <google/protobuf/stubs/common.h>
#include <grpcpp/version_info.h>
#include <Eigen/Core>

#include <ostream>

namespace clab::cli {

std::string VersionCommand::summary() const { return "Print the versions of ClusterLab, protobuf, gRPC and Eigen"; }

std::string VersionCommand::description() const {
  return "Prints ClusterLab's version, then the versions of protobuf, gRPC and Eigen that this\n"
         "program was built with. `clab --version` is the same command.";
}

Status VersionCommand::Run(std::ostream& out) {
  out << "ClusterLab " << CLAB_VERSION << "\n"
      << "protobuf " << google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION) << "\n"
      << "gRPC " << GRPC_CPP_VERSION_STRING << "\n"
      << "Eigen " << EIGEN_WORLD_VERSION << "." << EIGEN_MAJOR_VERSION << "." << EIGEN_MINOR_VERSION << "\n";
  return OkStatus();
}

}  // namespace clab::cli
