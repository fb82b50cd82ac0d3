"""Graphs and tensors for the protocol test, built with TensorFlow's own message classes
(generated from its .proto files at test time). Written here by hand: a float model
r1 = x + y, r2 = r1 * c, a counter variable on the ps, and a ps partition as a TensorFlow
master would register it (client-terminated _Recv/_Send with TensorFlow's attrs)."""

from tensorflow.core.framework import attr_value_pb2, graph_pb2, tensor_pb2, types_pb2

CPU = "/device:CPU:0"


def scalar(value):
    return tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[value])


def value_of(tensor):
    """The float a scalar TensorProto holds, in whichever field the server used."""
    if tensor.float_val:
        return tensor.float_val[0]
    import struct
    return struct.unpack("<f", tensor.tensor_content[:4])[0]


def node(graph, name, op, inputs=(), device="", **attrs):
    n = graph.node.add(name=name, op=op, device=device)
    n.input.extend(inputs)
    for key, value in attrs.items():
        attr = n.attr[key]
        if isinstance(value, bool):
            attr.b = value
        elif isinstance(value, int) and key in ("dtype", "T", "tensor_type"):
            attr.type = value
        elif isinstance(value, int):
            attr.i = value
        elif isinstance(value, str):
            attr.s = value.encode()
        elif isinstance(value, tensor_pb2.TensorProto):
            attr.tensor.CopyFrom(value)
        elif isinstance(value, attr_value_pb2.AttrValue):
            attr.CopyFrom(value)
        else:
            raise TypeError(f"attr {key}: {value!r}")
    return n


def scalar_shape():
    shape = attr_value_pb2.AttrValue()
    shape.shape.SetInParent()
    return shape


def model_graph(ps_task, worker_task):
    """x, y, c placeholders; r1 = x + y and r2 = r1 * c on the worker; a variable `v` on the
    ps with v_init (v = 1) and v_inc (v += 1)."""
    graph = graph_pb2.GraphDef()
    worker_cpu = worker_task + CPU
    for name in ("x", "y", "c"):
        node(graph, name, "Placeholder", device=worker_cpu, dtype=types_pb2.DT_FLOAT, shape=scalar_shape())
    node(graph, "r1", "Add", ["x", "y"], worker_cpu, T=types_pb2.DT_FLOAT)
    node(graph, "r2", "Mul", ["r1", "c"], worker_cpu, T=types_pb2.DT_FLOAT)
    ps_cpu = ps_task + CPU
    node(graph, "v", "VariableV2", device=ps_cpu, dtype=types_pb2.DT_FLOAT, shape=scalar_shape(),
         container="", shared_name="")
    node(graph, "one", "Const", device=ps_cpu, dtype=types_pb2.DT_FLOAT, value=scalar(1.0))
    node(graph, "v_init", "Assign", ["v", "one"], ps_cpu, T=types_pb2.DT_FLOAT)
    node(graph, "v_inc", "AssignAdd", ["v", "one"], ps_cpu, T=types_pb2.DT_FLOAT)
    node(graph, "v_read", "Identity", ["v"], ps_cpu, T=types_pb2.DT_FLOAT)
    return graph


def rendezvous_key(send_device, incarnation, recv_device, tensor_name):
    """TensorFlow's key: src device; src incarnation (hex); dst device; tensor name; frame:iter."""
    return f"{send_device};{incarnation:016x};{recv_device};{tensor_name};0:0"


def ps_partition(ps_device, ps_incarnation, client_device, peer_device):
    """The ps's share of `prod = x * 2` as a TensorFlow master registers it: x arrives through
    a client-terminated _Recv, prod leaves through a client-terminated _Send (for RunGraph's
    recv_key) and through a _Send to a peer's device (for that peer's RecvTensor).
    Returns (graph, feed key, fetch key, peer key)."""
    graph = graph_pb2.GraphDef()
    client_incarnation = 0x5eed
    node(graph, "x/_recv", "_Recv", device=ps_device, tensor_type=types_pb2.DT_FLOAT, tensor_name="x:0",
         send_device=client_device, send_device_incarnation=client_incarnation, recv_device=ps_device,
         client_terminated=True)
    node(graph, "two", "Const", device=ps_device, dtype=types_pb2.DT_FLOAT, value=scalar(2.0))
    node(graph, "prod", "Mul", ["x/_recv", "two"], ps_device, T=types_pb2.DT_FLOAT)
    signed = ps_incarnation - (1 << 64) if ps_incarnation >= (1 << 63) else ps_incarnation
    node(graph, "prod/_send", "_Send", ["prod"], ps_device, T=types_pb2.DT_FLOAT, tensor_name="prod:0",
         send_device=ps_device, send_device_incarnation=signed, recv_device=client_device, client_terminated=True)
    node(graph, "prod/_send_peer", "_Send", ["prod"], ps_device, T=types_pb2.DT_FLOAT, tensor_name="edge_7_prod",
         send_device=ps_device, send_device_incarnation=signed, recv_device=peer_device, client_terminated=False)
    feed_key = rendezvous_key(client_device, client_incarnation, ps_device, "x:0")
    fetch_key = rendezvous_key(ps_device, ps_incarnation, client_device, "prod:0")
    peer_key = rendezvous_key(ps_device, ps_incarnation, peer_device, "edge_7_prod")
    return graph, feed_key, fetch_key, peer_key
