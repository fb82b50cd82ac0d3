#include "exampledata/ExampleDataPath.h"

#include <cstdlib>
#include <filesystem>

namespace clab::tools {

std::string ExampleDataPath(const std::string& name) {
  if (const char* source = std::getenv("CLAB_SOURCE_DIR"); source && *source)
    return std::string(source) + "/resources/data/" + name;
#ifdef CLAB_SOURCE_DIR_FALLBACK
  if (std::filesystem::exists(std::string(CLAB_SOURCE_DIR_FALLBACK) + "/resources/data/" + name))
    return std::string(CLAB_SOURCE_DIR_FALLBACK) + "/resources/data/" + name;
#endif
  std::error_code error;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
  return (exe.parent_path().parent_path() / "share" / "clusterlab" / "data" / name).string();
}

}  // namespace clab::tools
