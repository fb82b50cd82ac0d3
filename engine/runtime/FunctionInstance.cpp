#include "clab/runtime/FunctionInstance.h"

#include "clab/runtime/Executor.h"
#include "runtime/FunctionBodyGraph.h"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

namespace clab {
namespace {

// Step ids of function calls: far from a session's own (which count up from small numbers),
// so that step-scoped state of a call never meets a step's.
std::atomic<int64_t> next_call_step_id{int64_t{1} << 62};

// Calls inside one another on a thread: a body runs on its caller's thread, and a body may
// call a function in turn (a OneShotIterator in a dataset factory, a map that reads an
// iterator), even itself. Each level takes stack; past this many a call fails instead.
constexpr int kMaxCallNesting = 64;
thread_local int call_nesting = 0;

// The functions being instantiated on this thread, outermost first: building a body builds
// its kernels, and a kernel that takes a function (MapDataset's f, OneShotIterator's
// dataset_factory) instantiates that one in turn. A function met again is a cycle, which
// would recurse until the stack ran out.
thread_local std::vector<std::string> instantiating;

class Instantiating {
 public:
  explicit Instantiating(const std::string& name) { instantiating.push_back(name); }
  ~Instantiating() { instantiating.pop_back(); }
  Instantiating(const Instantiating&) = delete;
  Instantiating& operator=(const Instantiating&) = delete;
};

}  // namespace

FunctionInstance::~FunctionInstance() = default;

StatusOr<std::shared_ptr<FunctionInstance>> FunctionInstance::Create(
    const tensorflow::FunctionDef& function, const google::protobuf::Map<std::string, tensorflow::AttrValue>& attrs,
    const tensorflow::FunctionDefLibrary& library, Device* device, const std::string& caller) {
  const std::string& name = function.signature().name();
  if (std::find(instantiating.begin(), instantiating.end(), name) != instantiating.end())
    return errors::InvalidArgument("Function '", name, "' (called by node '", caller,
                                   "') calls itself: ", absl::StrJoin(instantiating, " -> "), " -> ", name);
  if (instantiating.size() >= static_cast<size_t>(kMaxCallNesting))
    return errors::InvalidArgument("Function '", name, "' (called by node '", caller, "') is nested inside ",
                                   kMaxCallNesting, " other functions: ", instantiating.front(), " -> ... -> ",
                                   instantiating.back());
  const Instantiating guard(name);
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
  if (call_nesting >= kMaxCallNesting)
    return errors::InvalidArgument("Node '", caller_, "' calls ", who, " inside ", kMaxCallNesting,
                                   " other function calls; does a function call itself?");
  Executor::RunArgs run;
  run.step_id = next_call_step_id.fetch_add(1, std::memory_order_relaxed);
  run.feeds = std::move(args);
  ++call_nesting;
  Executor::Result result = executor_->Run(std::move(run));
  --call_nesting;
  if (!result.status.ok()) return errors::Annotate(result.status, absl::StrCat("In ", who, ": "));
  for (size_t i = 0; i < result.fetches.size(); ++i) {
    if (result.fetches[i].dtype() != ret_types_[i])
      return errors::InvalidArgument("Output ", i, " of ", who, " is ", DataTypeName(result.fetches[i].dtype()),
                                     ", but the function declares ", DataTypeName(ret_types_[i]));
  }
  return std::move(result.fetches);
}

}  // namespace clab
