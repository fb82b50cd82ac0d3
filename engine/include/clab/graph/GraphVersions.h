// The GraphDef version ClusterLab writes into every graph it builds (GraphDef.versions):
// TensorFlow checks a graph's producer against the consumer's min_producer before running
// or importing it. ClusterLab's graphs use the op set and attrs of TensorFlow 1.13 (producer
// 27, what TensorFlow 1.13 writes), which every later 1.x release, 1.15 included, accepts.
#pragma once

namespace clab {

inline constexpr int kGraphDefProducer = 27;
// Every TensorFlow release reads graphs of this producer; none is excluded.
inline constexpr int kGraphDefMinConsumer = 0;

}  // namespace clab
