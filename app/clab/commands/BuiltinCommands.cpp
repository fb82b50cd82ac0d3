#include "commands/BuiltinCommands.h"

#include "cli/CommandRegistry.h"
#include "commands/BenchComputeCommand.h"
#include "commands/BenchFloorServerCommand.h"
#include "commands/BenchSimulateCommand.h"
#include "commands/BenchStepCommand.h"
#include "commands/BenchTrainCommand.h"
#include "commands/BenchTrainWorkerCommand.h"
#include "commands/CertCommand.h"
#include "commands/CkptCommands.h"
#include "commands/DemoCommand.h"
#include "commands/EventsCommand.h"
#include "commands/ExampleGraphCommand.h"
#include "commands/ExampleSeedCommand.h"
#include "commands/ExampleTrainCommand.h"
#include "commands/ExportCommand.h"
#include "commands/GraphShowCommand.h"
#include "commands/HelpCommand.h"
#include "commands/ImportCommand.h"
#include "commands/LaunchCommand.h"
#include "commands/OpsCommand.h"
#include "commands/RunCommand.h"
#include "commands/ServerCommand.h"
#include "commands/SimulateCommand.h"
#include "commands/SlurmSpecCommand.h"
#include "commands/SlurmTaskCommand.h"
#include "commands/TrainCommand.h"
#include "commands/VersionCommand.h"
#include "commands/WatchCommand.h"

#include <memory>

namespace clab::cli {

void RegisterBuiltinCommands(CommandRegistry& registry) {
  registry.Add(std::make_unique<DemoCommand>());
  registry.Add(std::make_unique<BenchComputeCommand>());
  registry.Add(std::make_unique<BenchStepCommand>());
  registry.Add(std::make_unique<BenchFloorServerCommand>());
  registry.Add(std::make_unique<BenchTrainCommand>());
  registry.Add(std::make_unique<BenchTrainWorkerCommand>());
  registry.Add(std::make_unique<BenchSimulateCommand>());
  registry.Add(std::make_unique<CertCommand>());
  registry.Add(std::make_unique<CkptLsCommand>());
  registry.Add(std::make_unique<CkptShowCommand>());
  registry.Add(std::make_unique<EventsCommand>());
  registry.Add(std::make_unique<ExampleSeedCommand>());
  registry.Add(std::make_unique<ExampleGraphCommand>());
  registry.Add(std::make_unique<ExampleTrainCommand>());
  registry.Add(std::make_unique<ServerCommand>());
  registry.Add(std::make_unique<SimulateCommand>());
  registry.Add(std::make_unique<TrainCommand>());
  registry.Add(std::make_unique<LaunchCommand>());
  registry.Add(std::make_unique<SlurmSpecCommand>());
  registry.Add(std::make_unique<SlurmTaskCommand>());
  registry.Add(std::make_unique<ExportCommand>());
  registry.Add(std::make_unique<ImportCommand>());
  registry.Add(std::make_unique<GraphShowCommand>());
  registry.Add(std::make_unique<RunCommand>());
  registry.Add(std::make_unique<OpsCommand>());
  registry.Add(std::make_unique<VersionCommand>());
  registry.Add(std::make_unique<WatchCommand>());
  registry.Add(std::make_unique<HelpCommand>(registry));
}

}  // namespace clab::cli
