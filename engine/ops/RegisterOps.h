// The op families. OpRegistry::Global() calls each once, in this order.
#pragma once

namespace clab {

class OpRegistry;

void RegisterArrayOps(OpRegistry& registry);     // ops/ArrayOps.cpp
void RegisterStateOps(OpRegistry& registry);     // ops/StateOps.cpp
void RegisterMathOps(OpRegistry& registry);      // ops/MathOps.cpp
void RegisterNnOps(OpRegistry& registry);        // ops/NnOps.cpp
void RegisterNnGradOps(OpRegistry& registry);    // ops/NnGradOps.cpp
void RegisterNnLossOps(OpRegistry& registry);    // ops/NnLossOps.cpp
void RegisterConvOps(OpRegistry& registry);      // ops/ConvOps.cpp
void RegisterPoolOps(OpRegistry& registry);      // ops/PoolOps.cpp
void RegisterModelOps(OpRegistry& registry);     // ops/ModelOps.cpp
void RegisterRandomOps(OpRegistry& registry);    // ops/RandomOps.cpp
void RegisterSendRecvOps(OpRegistry& registry);  // runtime/SendRecvOps.cpp
void RegisterVariableStatusOps(OpRegistry& registry);  // ops/VariableStatusOps.cpp
void RegisterQueueOps(OpRegistry& registry);        // ops/QueueOps.cpp
void RegisterAccumulatorOps(OpRegistry& registry);  // ops/AccumulatorOps.cpp
void RegisterGatherScatterOps(OpRegistry& registry);  // ops/GatherScatterOps.cpp
void RegisterPackOps(OpRegistry& registry);         // ops/PackOps.cpp
void RegisterDatasetOps(OpRegistry& registry);   // ops/DatasetOps.cpp

}  // namespace clab
