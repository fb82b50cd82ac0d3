#include "clab/runtime/Device.h"

#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace clab {
namespace {

constexpr const char* kCudaPlugin = "libclab_cuda.so";

// Directories to search, in order: the user's override, the build tree (so tests and
// uninstalled programs find a freshly built plugin), the install location.
std::vector<std::string> PluginDirectories() {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("CLAB_PLUGIN_PATH")) {
    for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) dirs.emplace_back(dir);
  }
#ifdef CLAB_BUILD_PLUGIN_DIR
  if (std::string_view(CLAB_BUILD_PLUGIN_DIR).size() > 0) dirs.emplace_back(CLAB_BUILD_PLUGIN_DIR);
#endif
#ifdef CLAB_PLUGIN_DIR
  dirs.emplace_back(CLAB_PLUGIN_DIR);
#endif
  return dirs;
}

std::vector<std::string> LoadAll() {
  std::vector<std::string> notes;
  std::error_code ignored;
  for (const std::string& dir : PluginDirectories()) {
    const std::filesystem::path path = std::filesystem::path(dir) / kCudaPlugin;
    if (!std::filesystem::exists(path, ignored)) continue;
    // RTLD_LOCAL: the plugin reaches the engine through its own link to libclab_engine,
    // which is the already-loaded copy, so registries are shared without exporting its symbols.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      notes.push_back(absl::StrCat(path.string(), ": not loaded: ", why ? why : "unknown error"));
      continue;
    }
    using RegisterFn = void (*)();
    auto register_plugin = reinterpret_cast<RegisterFn>(dlsym(handle, "clab_register_plugin"));
    if (!register_plugin) {
      notes.push_back(absl::StrCat(path.string(), ": no clab_register_plugin symbol"));
      dlclose(handle);
      continue;
    }
    register_plugin();
    notes.push_back(absl::StrCat(path.string(), ": loaded"));
    // The first copy found wins: a second would register the same kernels again.
    return notes;
  }
  if (notes.empty()) {
    std::vector<std::string> dirs = PluginDirectories();
    notes.push_back(
        absl::StrCat(kCudaPlugin, " not found (searched ", absl::StrJoin(dirs, ", "), "); running on CPU only"));
  }
  return notes;
}

}  // namespace

const std::vector<std::string>& LoadDevicePlugins() {
  // Loaded plugins stay for the life of the process: their kernels sit in the registry.
  static const std::vector<std::string> notes = LoadAll();
  return notes;
}

}  // namespace clab
