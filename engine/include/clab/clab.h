// The ClusterLab engine's C++ API in one include, for programs that use it:
//
//   #include "clab/clab.h"
//
//   clab::GraphBuilder g;
//   auto x = clab::ops::MakeVariable(g, clab::ops::Const(g, clab::Tensor::Matrix<int32_t>({{1, 2, 3, 4}})), "x");
//   ...
//   auto session = clab::NewSession({});            // or {.target = server->target()}
//
// Tensors and errors (core), building graphs and the clab::ops functions (graph, ops),
// sessions (runtime), compiling a step into partitions (compile), clusters and servers
// (distributed), training: gradients, optimizers, the global step, the monitored session,
// savers and hooks (train), and the files it reads and writes (io). Writing kernels of new
// ops needs the registry and kernel headers as well (clab/graph/OpRegistry.h,
// clab/runtime/OpKernel.h); they are not part of this header.
#pragma once

#include "clab/Version.h"

#include "clab/core/DataType.h"
#include "clab/core/DeviceName.h"
#include "clab/core/Status.h"
#include "clab/core/Tensor.h"
#include "clab/core/TensorShape.h"
#include "clab/core/TerminationSignal.h"

#include "clab/graph/AttrValues.h"
#include "clab/graph/Graph.h"
#include "clab/graph/GraphBuilder.h"
#include "clab/graph/GraphImport.h"
#include "clab/graph/GraphKeys.h"
#include "clab/graph/Prune.h"
#include "clab/ops/Ops.h"

#include "clab/compile/CompileStep.h"
#include "clab/compile/CompiledStep.h"
#include "clab/compile/StepSignature.h"

#include "clab/runtime/DirectSession.h"
#include "clab/runtime/Session.h"

#include "clab/distributed/ClusterSpec.h"
#include "clab/distributed/LinkProbe.h"
#include "clab/distributed/ReplicaDeviceSetter.h"
#include "clab/distributed/Server.h"

#include "clab/train/AdagradOptimizer.h"
#include "clab/train/AdamOptimizer.h"
#include "clab/train/CheckpointState.h"
#include "clab/train/ChromeTrace.h"
#include "clab/train/GlobalStep.h"
#include "clab/train/GradientDescentOptimizer.h"
#include "clab/train/Gradients.h"
#include "clab/train/MomentumOptimizer.h"
#include "clab/train/MonitoredSession.h"
#include "clab/train/Optimizer.h"
#include "clab/train/RMSPropOptimizer.h"
#include "clab/train/Saver.h"
#include "clab/train/SessionRunHook.h"
#include "clab/train/SummaryWriterCache.h"
#include "clab/train/SyncReplicasOptimizer.h"
#include "clab/train/TrainingEvents.h"
#include "clab/train/hooks/CheckpointSaverHook.h"
#include "clab/train/hooks/LoggingTensorHook.h"
#include "clab/train/hooks/NanTensorHook.h"
#include "clab/train/hooks/SmallHooks.h"
#include "clab/train/hooks/StepCounterHook.h"
#include "clab/train/hooks/StepReporterHook.h"
#include "clab/train/hooks/StopAtStepHook.h"
#include "clab/train/hooks/SummarySaverHook.h"
#include "clab/train/hooks/SyncReplicasHook.h"

#include "clab/io/CsvTable.h"
#include "clab/io/EventFileWriter.h"
#include "clab/io/RecordFile.h"
#include "clab/io/TensorBundle.h"
