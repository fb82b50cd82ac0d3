#include "clab/train/hooks/CheckpointSaverHook.h"

#include "clab/io/TensorBundle.h"
#include "clab/train/Saver.h"
#include "clab/train/SummaryWriterCache.h"
#include "clab/train/hooks/SmallHooks.h"

#include <google/protobuf/text_format.h>

#include <filesystem>
#include <fstream>

namespace clab {

CheckpointSaverHook::CheckpointSaverHook(std::string checkpoint_dir, SecondOrStepTimer timer,
                                         std::shared_ptr<Saver> saver, std::string basename)
    : dir_(std::move(checkpoint_dir)), timer_(timer), saver_(std::move(saver)), basename_(std::move(basename)) {}

Status CheckpointSaverHook::Begin(HookEnvironment& env) {
  if (env.global_step_tensor.empty())
    return errors::FailedPrecondition("Global step should be created to use CheckpointSaverHook.");
  if (!saver_) return errors::FailedPrecondition("CheckpointSaverHook needs a Saver");
  env_ = env;
  env_.log->Hook(name(), LogLevel::kInfo, "Create CheckpointSaverHook.");
  CLAB_ASSIGN_OR_RETURN(writer_, SummaryWriterFor(dir_));
  return OkStatus();
}

Status CheckpointSaverHook::AfterCreateSession(Session& session) {
  if (env_.graph_def != nullptr) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(*env_.graph_def, &text);
    std::ofstream out((std::filesystem::path(dir_) / "graph.pbtxt").string(), std::ios::trunc);
    out << text;
    tensorflow::Event event;
    event.set_wall_time(WallTimeSeconds());
    event.set_graph_def(env_.graph_def->SerializeAsString());
    CLAB_RETURN_IF_ERROR(writer_->WriteEvent(event));
  }
  // TensorBoard's graph view also reads the meta graph (its collections and saver).
  if (const tensorflow::MetaGraphDef* meta = saver_->meta_graph(); meta != nullptr) {
    tensorflow::Event event;
    event.set_wall_time(WallTimeSeconds());
    event.set_meta_graph_def(meta->SerializeAsString());
    CLAB_RETURN_IF_ERROR(writer_->WriteEvent(event));
  }
  // A checkpoint right at creation: a fresh run has model.ckpt-0 to restart from. A session
  // that restored the model at this step already has its checkpoint: saving it again would
  // only rewrite a listed checkpoint (with whatever other workers did since the restore).
  CLAB_ASSIGN_OR_RETURN(int64_t step, ReadGlobalStep(session, env_.global_step_tensor));
  const std::string prefix = (std::filesystem::path(dir_) / StrCat(basename_, "-", step)).string();
  const auto& listed = saver_->last_checkpoints();
  if (std::find(listed.begin(), listed.end(), prefix) == listed.end()) {
    CLAB_RETURN_IF_ERROR(Save(session, step));
  } else {
    last_saved_step_ = step;
  }
  timer_.UpdateLastTriggeredStep(step);
  return OkStatus();
}

StatusOr<SessionRunArgs> CheckpointSaverHook::BeforeRun(SessionRunContext&) {
  SessionRunArgs args;
  args.fetches = {env_.global_step_tensor};
  return args;
}

Status CheckpointSaverHook::AfterRun(SessionRunContext& context, const SessionRunValues& values) {
  const int64_t fetched = values.results[0].scalar<int64_t>();
  if (!timer_.ShouldTriggerForStep(fetched + 1)) return OkStatus();
  CLAB_ASSIGN_OR_RETURN(int64_t step, ReadGlobalStep(*context.session(), env_.global_step_tensor));
  if (timer_.ShouldTriggerForStep(step)) {
    timer_.UpdateLastTriggeredStep(step);
    CLAB_RETURN_IF_ERROR(Save(*context.session(), step));
  }
  return OkStatus();
}

Status CheckpointSaverHook::End(Session& session) {
  CLAB_ASSIGN_OR_RETURN(int64_t step, ReadGlobalStep(session, env_.global_step_tensor));
  if (step != last_saved_step_) CLAB_RETURN_IF_ERROR(Save(session, step));
  return writer_->Flush();
}

Status CheckpointSaverHook::Save(Session& session, int64_t step) {
  const std::string base = (std::filesystem::path(dir_) / basename_).string();
  env_.log->Hook(name(), LogLevel::kInfo, StrCat("Saving checkpoints for ", step, " into ", base, "."), {}, step);
  CLAB_ASSIGN_OR_RETURN(std::string prefix, saver_->Save(session, base, step));
  last_saved_step_ = step;
  ++saves_;
  CLAB_RETURN_IF_ERROR(writer_->WriteSessionLog(step, tensorflow::SessionLog::CHECKPOINT, base));
  CLAB_RETURN_IF_ERROR(writer_->Flush());
  std::error_code ec;
  const auto bytes =
      std::filesystem::file_size(prefix + ".index", ec) + std::filesystem::file_size(BundleDataFile(prefix), ec);
  env_.log->Checkpoint(prefix, step, static_cast<int64_t>(bytes), static_cast<int>(saver_->variables().size()), false);
  return OkStatus();
}

}  // namespace clab
