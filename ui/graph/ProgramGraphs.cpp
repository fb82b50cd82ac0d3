#include "graph/ProgramGraphs.h"

#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/graph/GraphBuilder.h"
#include "examplegraphs/ClassifierGraph.h"
#include "examplegraphs/SeedGraph.h"

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
      // The shapes of the example data sets: 8x8 digit images in 10 classes, 4 iris
      // measurements in 3 species; the models of examples/models/TrainProgram.
      const bool digits = program == "digits-mlp";
      CLAB_RETURN_IF_ERROR(tools::BuildClassifier(g, digits ? 64 : 4,
                                                  digits ? std::vector<int>{128} : std::vector<int>{}, digits ? 10 : 3,
                                                  0.1, 7)
                               .status());
    } else {
      return errors::NotFound("no built-in graph for the program '", program.toStdString(), "'");
    }
  }
  CLAB_RETURN_IF_ERROR(g.status());
  return g.graph_def();
}

}  // namespace clab::ui
