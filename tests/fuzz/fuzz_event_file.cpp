// An event file (TensorBoard's format: TFRecord framing around Event messages), as
// `clab events` and the studio's charts read it.
#include "FuzzFile.h"
#include "clab/io/EventFileWriter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static clab::fuzz::FuzzFile file("events.out.tfevents.0000000000.fuzz");
  std::vector<tensorflow::Event> events;
  (void)clab::ReadEventFile(file.Write(data, size), &events);
  for (const tensorflow::Event& event : events) (void)event.ShortDebugString();
  return 0;
}
