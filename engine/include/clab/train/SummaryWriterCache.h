// One event file writer per directory per process, shared by the hooks that write there
// (step counter, summary saver, checkpoint saver), as TensorFlow's SummaryWriterCache does.
#pragma once

#include "clab/core/Status.h"
#include "clab/io/EventFileWriter.h"

#include <memory>
#include <string>

namespace clab {

StatusOr<std::shared_ptr<EventFileWriter>> SummaryWriterFor(const std::string& log_dir);
// Flushes and forgets every cached writer (end of a run, tests).
void ClearSummaryWriters();

}  // namespace clab
