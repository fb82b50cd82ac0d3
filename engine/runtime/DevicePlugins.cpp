#include "clab/runtime/Device.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string_view>

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

// Why no GPU can be used here, or "" when one may be. The plugin maps the CUDA runtime and
// cuBLAS (about 175 MB of every task's memory), so a machine without a GPU is told apart
// first, as cheaply as possible: the driver's device files, then the driver library alone.
std::string NoGpuReason() {
  std::error_code ignored;
  bool device_files =
      std::filesystem::exists("/dev/nvidiactl", ignored) || std::filesystem::exists("/dev/dxg", ignored);
  for (int i = 0; i < 64 && !device_files; ++i)
    device_files = std::filesystem::exists("/dev/nvidia" + std::to_string(i), ignored);
  if (!device_files) return "no NVIDIA GPU here (no /dev/nvidiactl or /dev/nvidia0...)";
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    const char* why = dlerror();
    return absl::StrCat("the CUDA driver does not load (", why ? why : "libcuda.so.1", ")");
  }
  // CUresult is an int; 0 is CUDA_SUCCESS.
  using InitFn = int (*)(unsigned int);
  using CountFn = int (*)(int*);
  auto init = reinterpret_cast<InitFn>(dlsym(driver, "cuInit"));
  auto count_devices = reinterpret_cast<CountFn>(dlsym(driver, "cuDeviceGetCount"));
  if (!init || !count_devices) {
    dlclose(driver);
    return "libcuda.so.1 has no cuInit or cuDeviceGetCount";
  }
  // The driver stays loaded from here on: once initialised it is not safely unloaded, and the
  // plugin uses it anyway.
  if (const int error = init(0); error != 0)
    return absl::StrCat("cuInit failed with CUresult ", error, error == 100 ? " (no CUDA device)" : "");
  int count = 0;
  if (const int error = count_devices(&count); error != 0)
    return absl::StrCat("cuDeviceGetCount failed with CUresult ", error);
  if (count == 0) return "no CUDA device (cuDeviceGetCount is 0; CUDA_VISIBLE_DEVICES may hide them)";
  return "";
}

std::vector<std::string> LoadAll() {
  std::vector<std::string> notes;
  std::error_code ignored;
  // CLAB_LOAD_PLUGINS_WITHOUT_GPU=1 loads them anyway (to test a plugin file on any machine).
  const char* force = std::getenv("CLAB_LOAD_PLUGINS_WITHOUT_GPU");
  std::optional<std::string> no_gpu;
  for (const std::string& dir : PluginDirectories()) {
    const std::filesystem::path path = std::filesystem::path(dir) / kCudaPlugin;
    if (!std::filesystem::exists(path, ignored)) continue;
    if (!no_gpu) no_gpu = force != nullptr && std::string_view(force) == "1" ? std::string() : NoGpuReason();
    if (!no_gpu->empty()) {
      notes.push_back(absl::StrCat(path.string(), ": not loaded: ", *no_gpu, "; running on CPU only"));
      return notes;
    }
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
