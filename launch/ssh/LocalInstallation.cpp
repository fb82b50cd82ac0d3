#include "launch/ssh/LocalInstallation.h"

#include "clab/distributed/ClusterSpec.h"
#include "exampledata/ExampleDataPath.h"

#include <dlfcn.h>

#include <filesystem>

namespace clab::launch {

StatusOr<LocalInstallation> LocalInstallation::Find(const std::string& program) {
  LocalInstallation found;
  std::error_code error;
  if (!std::filesystem::is_regular_file(program, error))
    return errors::FailedPrecondition("cannot copy ClusterLab: '", program, "' is not a file");
  found.program = program;
  // The engine library is the one this process loaded (the copied program loads the same).
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&ClusterSpec::Parse), &info) == 0 || info.dli_fname == nullptr)
    return errors::FailedPrecondition("cannot copy ClusterLab: the engine library's file is unknown");
  // The name the loader found it by (libclab_engine.so.0), which the copy must keep.
  found.engine_library = info.dli_fname;
  if (!std::filesystem::is_regular_file(found.engine_library, error))
    return errors::FailedPrecondition("cannot copy ClusterLab: the engine library '", found.engine_library,
                                      "' is not a file");
  const std::filesystem::path data = std::filesystem::path(tools::ExampleDataPath("digits.csv.gz")).parent_path();
  for (const auto& entry : std::filesystem::directory_iterator(data, error))
    if (entry.is_regular_file() && entry.path().filename() != "README.md")
      found.data_files.push_back(entry.path().string());
  if (error || found.data_files.empty())
    return errors::FailedPrecondition("cannot copy ClusterLab: no example data at ", data.string());
  return found;
}

}  // namespace clab::launch
