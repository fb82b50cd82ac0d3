#include "commands/CkptCommands.h"

#include "clab/io/TensorBundle.h"
#include "clab/train/CheckpointState.h"
#include "cli/CliStatus.h"
#include "cli/FlagParser.h"
#include "cli/TextTable.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>

#include <filesystem>
#include <ostream>
#include <system_error>

namespace clab::cli {
namespace {

namespace fs = std::filesystem;

// "model.ckpt-2000" -> "2000"; "" when the name has no step.
std::string StepOf(const std::string& prefix) {
  const size_t dash = prefix.rfind('-');
  int64_t step = 0;
  if (dash == std::string::npos || !absl::SimpleAtoi(prefix.substr(dash + 1), &step)) return "";
  return std::to_string(step);
}

std::string HumanBytes(uintmax_t bytes) {
  if (bytes < 10 * 1024) return absl::StrCat(bytes, " B");
  if (bytes < 10 * 1024 * 1024) return absl::StrFormat("%.1f KiB", bytes / 1024.0);
  return absl::StrFormat("%.1f MiB", bytes / (1024.0 * 1024.0));
}

// The tensor's first values numpy-style on one line: "[[2] [2] [2] [2]]".
std::string OneLineValues(const Tensor& tensor, int max_entries) {
  std::string text;
  for (char c : tensor.DebugString(max_entries)) {
    if (c == '\n') c = ' ';
    if (c == ' ' && !text.empty() && text.back() == ' ') continue;
    text += c;
  }
  return text;
}

}  // namespace

std::string CkptLsCommand::description() const {
  return "Reads DIR/checkpoint (the state file MonitoredTrainingSession and Saver write) and lists\n"
         "every checkpoint it names, oldest first: the global step, the size of its files, and\n"
         "whether it is whole (its index and every tensor's checksum are checked). The one marked\n"
         "'latest' is what a restarted chief restores; a damaged latest checkpoint is skipped for\n"
         "the previous good one. Exits with status 1 when any listed checkpoint is damaged or\n"
         "missing.";
}

void CkptLsCommand::DeclareFlags(FlagParser& flags) { flags.AddPositional("DIR", "a checkpoint directory", &dir_); }

Status CkptLsCommand::Run(std::ostream& out) {
  auto state = ReadCheckpointState(dir_);
  if (!state.ok()) {
    if (absl::IsNotFound(state.status()))
      return errors::NotFound("'", dir_, "' has no checkpoint state file (", (fs::path(dir_) / "checkpoint").string(),
                              "): no checkpoint was saved there");
    return state.status();
  }
  TextTable table({"step", "checkpoint", "size", "state"});
  int unusable = 0;
  for (const std::string& prefix : state->all_model_checkpoint_paths()) {
    std::error_code error;
    uintmax_t bytes = 0;
    for (const std::string& file : {prefix + ".index", BundleDataFile(prefix)}) {
      const uintmax_t size = fs::file_size(file, error);
      if (!error) bytes += size;
    }
    std::string condition;
    auto reader = TensorBundleReader::Open(prefix);
    if (reader.ok()) {
      // Every tensor is read back, so a damaged data file is caught, not only the index.
      Status checked;
      for (const BundleEntryInfo& entry : reader->List()) {
        checked = reader->Read(entry.name).status();
        if (!checked.ok()) break;
      }
      condition = checked.ok() ? absl::StrCat("ok, ", reader->List().size(), " tensors")
                               : absl::StrCat("DAMAGED: ", checked.message());
    } else if (absl::IsNotFound(reader.status())) {
      condition = "missing";
    } else {
      condition = absl::StrCat("DAMAGED: ", reader.status().message());
    }
    if (condition.rfind("ok", 0) != 0) ++unusable;
    if (prefix == state->model_checkpoint_path()) condition += " (latest)";
    table.AddRow({StepOf(prefix), fs::path(prefix).filename().string(), HumanBytes(bytes), condition});
  }
  out << "Checkpoints in " << dir_ << ":\n";
  table.Print(out);
  // Scripts and CI see a damaged or missing checkpoint in the exit status, not only in the table.
  if (unusable > 0)
    return errors::DataLoss(unusable, " of the ", state->all_model_checkpoint_paths_size(), " checkpoints listed in ",
                            (fs::path(dir_) / "checkpoint").string(), " are damaged or missing");
  return OkStatus();
}

std::string CkptShowCommand::description() const {
  return "Lists the tensors of one checkpoint: name, dtype, shape, bytes and the first values.\n"
         "PREFIX is a checkpoint prefix (DIR/model.ckpt-200, without .index); given a directory,\n"
         "the latest checkpoint of its state file is shown. Every value read is checksummed.";
}

void CkptShowCommand::DeclareFlags(FlagParser& flags) {
  flags.AddPositional("PREFIX", "a checkpoint prefix, or a directory for its latest checkpoint", &path_);
  flags.AddInt("values", "N", "how many values of each tensor to print", &values_, 0);
}

Status CkptShowCommand::Run(std::ostream& out) {
  std::string prefix = path_;
  std::error_code error;
  if (fs::is_directory(path_, error)) {
    auto latest = LatestCheckpoint(path_);
    if (!latest.ok()) return errors::NotFound("'", path_, "' holds no checkpoint: ", latest.status().message());
    prefix = *latest;
  }
  auto reader = TensorBundleReader::Open(prefix);
  if (!reader.ok()) {
    if (absl::IsNotFound(reader.status()))
      return errors::NotFound("no checkpoint at '", prefix, "' (", prefix, ".index does not exist)");
    return reader.status();
  }
  TextTable table({"tensor", "dtype", "shape", "bytes", "values"});
  for (const BundleEntryInfo& entry : reader->List()) {
    auto tensor = reader->Read(entry.name);
    if (!tensor.ok()) return tensor.status();
    table.AddRow({entry.name, DataTypeName(entry.dtype), entry.shape.DebugString(), std::to_string(entry.bytes),
                  values_ > 0 ? OneLineValues(*tensor, static_cast<int>(values_)) : ""});
  }
  out << "Checkpoint " << prefix << " (" << reader->List().size() << " tensors, " << HumanBytes(reader->data_bytes())
      << " of data):\n";
  table.Print(out);
  return OkStatus();
}

}  // namespace clab::cli
