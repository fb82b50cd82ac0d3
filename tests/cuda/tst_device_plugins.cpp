// Device plugins on any machine: loading them never fails, a missing GPU or a broken plugin
// file is a note, and the local devices always start with the host CPU. CTest runs this
// suite three times: as is, with CUDA's devices hidden (CUDA_VISIBLE_DEVICES=-1), and with a
// file that is not a shared library first on CLAB_PLUGIN_PATH.
#include "clab/core/DeviceName.h"
#include "clab/runtime/Device.h"

#include <QtTest>

#include <cstdlib>
#include <string>

using namespace clab;

namespace {

constexpr const char* kTask = "/job:localhost/replica:0/task:0";

int CountOfType(const DeviceMgr& devices, const std::string& type) {
  int n = 0;
  for (Device* d : devices.devices()) n += d->type() == type ? 1 : 0;
  return n;
}

// A machine without the NVIDIA kernel driver cannot have a usable GPU.
bool MachineHasNvidiaDriver() { return QFile::exists("/proc/driver/nvidia/version"); }

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

class DevicePluginsTest : public QObject {
  Q_OBJECT

 private slots:
  void loadingGivesNotesNotErrors() {
    const std::vector<std::string>& notes = LoadDevicePlugins();
    QVERIFY2(!notes.empty(), "LoadDevicePlugins should say what it loaded or why not");
    for (const auto& note : notes) qInfo("plugin note: %s", note.c_str());
    // Once per process: a second call returns the same notes and loads nothing again.
    QCOMPARE(&LoadDevicePlugins(), &notes);
  }

  void brokenPluginFileIsReportedAndSkipped() {
    const std::string broken = Env("CLAB_EXPECT_BROKEN_PLUGIN");
    if (broken.empty()) QSKIP("runs only with a broken plugin on CLAB_PLUGIN_PATH");
    bool mentioned = false;
    for (const auto& note : LoadDevicePlugins())
      mentioned = mentioned || (note.find(broken) != std::string::npos && note.find("not loaded") != std::string::npos);
    QVERIFY2(mentioned, "the broken plugin file should be named in a 'not loaded' note");
    auto devices = DeviceMgr::CreateLocal(kTask, tensorflow::ConfigProto());
    QVERIFY2(devices.ok(), std::string(devices.status().message()).c_str());
  }

  // Where no GPU can be used, the plugin (the CUDA runtime and cuBLAS, about 175 MB) stays
  // out of the process.
  void withoutAGpuThePluginStaysOut() {
    if (Env("CLAB_LOAD_PLUGINS_WITHOUT_GPU") == "1") QSKIP("this run loads plugins without a GPU");
    if (Env("CLAB_EXPECT_NO_GPU") != "1" && MachineHasNvidiaDriver()) QSKIP("this machine may have a GPU");
    const std::vector<std::string>& notes = LoadDevicePlugins();
    auto devices = DeviceMgr::CreateLocal(kTask, tensorflow::ConfigProto());
    QVERIFY(devices.ok());
    for (const auto& note : notes) QVERIFY2(note.find(": loaded") == std::string::npos, note.c_str());
    QFile maps("/proc/self/maps");
    QVERIFY(maps.open(QIODevice::ReadOnly));
    const QByteArray mapped = maps.readAll();
    QVERIFY2(!mapped.contains("libclab_cuda"), "the CUDA plugin is mapped");
    QVERIFY2(!mapped.contains("libcublas"), "cuBLAS is mapped");
  }

  // With the check skipped the plugin loads on any machine and offers no GPU without one.
  void aForcedLoadStillWorksWithoutAGpu() {
    if (Env("CLAB_LOAD_PLUGINS_WITHOUT_GPU") != "1" || !Env("CLAB_EXPECT_BROKEN_PLUGIN").empty())
      QSKIP("runs only with CLAB_LOAD_PLUGINS_WITHOUT_GPU=1 and a real plugin");
    bool loaded = false, absent = false;
    for (const auto& note : LoadDevicePlugins()) {
      loaded = loaded || note.find(": loaded") != std::string::npos;
      absent = absent || note.find("not found") != std::string::npos;
    }
    if (absent) QSKIP("no CUDA plugin in this build");
    QVERIFY2(loaded, "the plugin should load when the GPU check is skipped");
    auto devices = DeviceMgr::CreateLocal(kTask, tensorflow::ConfigProto());
    QVERIFY(devices.ok());
    if (!MachineHasNvidiaDriver()) QCOMPARE(CountOfType(**devices, "GPU"), 0);
  }

  void localDevicesStartWithTheCpu() {
    auto devices = DeviceMgr::CreateLocal(kTask, tensorflow::ConfigProto());
    QVERIFY2(devices.ok(), std::string(devices.status().message()).c_str());
    const DeviceMgr& mgr = **devices;
    QVERIFY(!mgr.devices().empty());
    QCOMPARE(mgr.host_cpu()->name(), std::string(kTask) + "/device:CPU:0");
    for (Device* d : mgr.devices()) {
      qInfo("device: %s (%s) %s", d->name().c_str(), d->type().c_str(), d->description().c_str());
      auto parsed = DeviceName::ParseFull(d->name());
      QVERIFY2(parsed.ok(), d->name().c_str());
      QVERIFY(parsed->InSameTask(mgr.host_cpu()->parsed_name()));
    }
  }

  void noGpuMeansNoGpuDevice() {
    auto devices = DeviceMgr::CreateLocal(kTask, tensorflow::ConfigProto());
    QVERIFY(devices.ok());
    const int gpus = CountOfType(**devices, "GPU");
    if (Env("CLAB_EXPECT_NO_GPU") == "1" || !MachineHasNvidiaDriver()) {
      QCOMPARE(gpus, 0);
    } else {
      qInfo("this machine has an NVIDIA driver and %d usable GPU device(s)", gpus);
    }
  }

  void gpuCountZeroHidesGpus() {
    tensorflow::ConfigProto config;
    (*config.mutable_device_count())["GPU"] = 0;
    auto devices = DeviceMgr::CreateLocal(kTask, config);
    QVERIFY(devices.ok());
    QCOMPARE(CountOfType(**devices, "GPU"), 0);
    QCOMPARE(CountOfType(**devices, "CPU"), 1);
  }

  void gpuDevicesCopyBothWays() {
    auto devices = DeviceMgr::CreateLocal(kTask, tensorflow::ConfigProto());
    QVERIFY(devices.ok());
    Device* gpu = nullptr;
    for (Device* d : (*devices)->devices())
      if (d->type() == "GPU") gpu = d;
    if (gpu == nullptr) QSKIP("no GPU device here");
    QVERIFY(!gpu->allocator()->OnHost());
    Tensor host = Tensor::Matrix<float>({{1, 2, 3}, {4, 5, 6}});
    Tensor on_gpu;
    QVERIFY(gpu->CopyHostToDevice(host, &on_gpu).ok());
    QVERIFY(!on_gpu.OnHost());
    Tensor back;
    QVERIFY(gpu->CopyDeviceToHost(on_gpu, &back).ok());
    QVERIFY(back.OnHost());
    QVERIFY(back.Equals(host));
    QVERIFY(gpu->Sync().ok());
  }
};

QTEST_APPLESS_MAIN(DevicePluginsTest)
#include "tst_device_plugins.moc"
