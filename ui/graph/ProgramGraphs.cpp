#include "graph/ProgramGraphs.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/graph/GraphBuilder.h"
#include "examplegraphs/ClassifierGraph.h"
#include "examplegraphs/SeedGraph.h"
#include "examplegraphs/TrainGraph.h"

namespace clab::ui {

StatusOr<tensorflow::GraphDef> ProgramGraphs::build(const QString& program, const DevicePlacement::Cluster& cluster) {
  GraphBuilder g;
  ReplicaDeviceSetterOptions setter;
  setter.worker_device = "/job:worker/task:0";
  setter.cluster = cluster;
  CLAB_ASSIGN_OR_RETURN(const DeviceFunction device_function, ReplicaDeviceSetter(setter));
  {
    auto scope = g.WithDevice(device_function);
    if (program == "seed") {
      tools::BuildSeedGraph(g);
    } else if (program == "digits-mlp" || program == "iris-softmax") {
      // The models of examples/models/TrainProgram, on placeholders for their data sets' rows.
      CLAB_ASSIGN_OR_RETURN(const tools::TrainModelSpec spec, tools::TrainModelSpecOf(program.toStdString()));
      CLAB_RETURN_IF_ERROR(
          tools::BuildClassifier(g, spec.num_features, spec.hidden, spec.num_classes, spec.learning_rate, 7).status());
    } else {
      return errors::NotFound("no built-in graph for the program '", program.toStdString(), "'");
    }
  }
  CLAB_RETURN_IF_ERROR(g.status());
  return g.graph_def();
}

}  // namespace clab::ui
