#include "clab/runtime/FunctionInstance.h"

#include "clab/runtime/Executor.h"
#include "runtime/FunctionBodyGraph.h"

#include <absl/strings/str_cat.h>

#include <atomic>

namespace clab {
namespace {

// Step ids of function calls: far from a session's own (which count up from small numbers),
// so that step-scoped state of a call never meets a step's.
std::atomic<int64_t> next_call_step_id{int64_t{1} << 62};

}  // namespace

FunctionInstance::~FunctionInstance() = default;

StatusOr<std::shared_ptr<FunctionInstance>> FunctionInstance::Create(
    const tensorflow::FunctionDef& function, const google::protobuf::Map<std::string, tensorflow::AttrValue>& attrs,
    const tensorflow::FunctionDefLibrary& library, Device* device, const std::string& caller) {
  CLAB_ASSIGN_OR_RETURN(FunctionBodyGraph body, BuildFunctionBodyGraph(function, attrs, library));
  std::shared_ptr<FunctionInstance> instance(new FunctionInstance());
  instance->name_ = function.signature().name();
  instance->caller_ = caller;
  instance->arg_types_ = body.arg_types;
  instance->ret_types_ = body.ret_types;
  Executor::Params params;
  params.graph = std::move(body.graph);
  params.device = device;
  params.feeds = std::move(body.feeds);
  params.fetches = std::move(body.fetches);
  params.targets = std::move(body.targets);
  params.run_on_caller = true;
  auto executor = Executor::Create(std::move(params));
  if (!executor.ok())
    return errors::Annotate(executor.status(), absl::StrCat("Function '", instance->name_, "' (called by node '",
                                                            caller, "') cannot be built: "));
  instance->executor_ = *std::move(executor);
  return instance;
}

StatusOr<std::vector<Tensor>> FunctionInstance::Call(std::vector<Tensor> args) const {
  const std::string who = absl::StrCat("function '", name_, "' (called by node '", caller_, "')");
  if (args.size() != arg_types_.size())
    return errors::InvalidArgument("Node '", caller_, "' passes ", args.size(), " argument(s) to ", who,
                                   ", which takes ", arg_types_.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].dtype() != arg_types_[i])
      return errors::InvalidArgument("Argument ", i, " of ", who, " is ", DataTypeName(args[i].dtype()),
                                     ", but the function declares ", DataTypeName(arg_types_[i]));
  }
  Executor::RunArgs run;
  run.step_id = next_call_step_id.fetch_add(1, std::memory_order_relaxed);
  run.feeds = std::move(args);
  Executor::Result result = executor_->Run(std::move(run));
  if (!result.status.ok()) return errors::Annotate(result.status, absl::StrCat("In ", who, ": "));
  for (size_t i = 0; i < result.fetches.size(); ++i) {
    if (result.fetches[i].dtype() != ret_types_[i])
      return errors::InvalidArgument("Output ", i, " of ", who, " is ", DataTypeName(result.fetches[i].dtype()),
                                     ", but the function declares ", DataTypeName(ret_types_[i]));
  }
  return std::move(result.fetches);
}

}  // namespace clab
