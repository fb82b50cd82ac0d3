<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>clab::ui::TeachingPanel</name>
    <message>
        <source>Running one traced step on a private cluster…</source>
        <translation>正在一个私有集群上运行一个带跟踪的步骤…</translation>
    </message>
    <message>
        <source>Cannot walk through the step: %1</source>
        <translation>无法演示这个步骤：%1</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Speed %1x</source>
        <translation>速度 %1x</translation>
    </message>
    <message>
        <source>Walk through one distributed step of this graph: choose what the step fetches, then press "Walk through one step".</source>
        <translation>逐步演示这个图的一个分布式步骤：先选择这一步要取回（fetch）什么，然后点击“演示一个步骤”。</translation>
    </message>
    <message>
        <source>node %1 of %2</source>
        <translation>第 %1 个节点，共 %2 个</translation>
    </message>
    <message>
        <source>Timeline of the traced steps</source>
        <translation>跟踪步骤的时间线</translation>
    </message>
    <message>
        <source>Teaching mode: one distributed step</source>
        <translation>教学模式：一个分布式步骤</translation>
    </message>
    <message>
        <source>Step runs:</source>
        <translation>这一步运行：</translation>
    </message>
    <message>
        <source>Tensors to fetch and nodes to run in the step, separated by commas</source>
        <translation>这一步要取回的张量和要运行的节点，用逗号分隔</translation>
    </message>
    <message>
        <source>Run once first:</source>
        <translation>先运行一次：</translation>
    </message>
    <message>
        <source>Walk through one step</source>
        <translation>演示一个步骤</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>后退</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>单步</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <source>Timeline…</source>
        <translation>时间线…</translation>
    </message>
</context>
<context>
    <name>clab::ui::TeachingText</name>
    <message>
        <source>? B</source>
        <translation>? 字节</translation>
    </message>
    <message>
        <source>%1 B</source>
        <translation>%1 字节</translation>
    </message>
    <message>
        <source>%1 KB</source>
        <translation>%1 KB</translation>
    </message>
    <message>
        <source>%1 MB</source>
        <translation>%1 MB</translation>
    </message>
    <message>
        <source>1. Prune</source>
        <translation>1. 剪枝</translation>
    </message>
    <message>
        <source>2. Place</source>
        <translation>2. 放置</translation>
    </message>
    <message>
        <source>3. Partition</source>
        <translation>3. 分割</translation>
    </message>
    <message>
        <source>4. Register</source>
        <translation>4. 注册</translation>
    </message>
    <message>
        <source>5. Run</source>
        <translation>5. 运行</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>The client calls &lt;i&gt;session.run&lt;/i&gt; and asks for %1. The master, which lives in the server of the client's own task, first keeps only the nodes those results need.</source>
        <translation>客户端调用 &lt;i&gt;session.run&lt;/i&gt;，请求 %1。master 位于客户端所在任务的 server 中，它首先只保留得到这些结果所需要的节点。</translation>
    </message>
    <message>
        <source>%1 of the graph's %2 nodes are needed. The %3 greyed out are not run in this step, for example the initialiser, which the chief ran once before the first step.</source>
        <translation>图中 %2 个节点里需要 %1 个。灰色的 %3 个节点在这一步中不会运行，例如初始化操作——chief 在第一步之前已经运行过一次。</translation>
    </message>
    <message>
        <source>The placer gives every kept node exactly one device. A node that asked for a device gets it; variables were put on the parameter servers (ps) by &lt;i&gt;replica_device_setter&lt;/i&gt;; everything else runs on the worker that owns the session. Nodes now have the colour of their task.</source>
        <translation>放置器（placer）为每个保留的节点指定唯一的设备。指定了设备的节点就放在那里；变量由 &lt;i&gt;replica_device_setter&lt;/i&gt; 放到参数服务器（ps）上；其余的都在拥有这个 session 的 worker 上运行。现在节点的颜色就是它所在任务的颜色。</translation>
    </message>
    <message numerus="yes">
        <source>%1: %n node(s)</source>
        <translation><numerusform>%1：%n 个节点</numerusform></translation>
    </message>
    <message>
        <source>A ps only stores variables and applies updates to them; it never runs the model. That is why a ps task just calls &lt;i&gt;server.join()&lt;/i&gt; and waits.</source>
        <translation>ps 只保存变量并对它们进行更新，从不运行模型。所以 ps 任务只调用 &lt;i&gt;server.join()&lt;/i&gt; 然后等待。</translation>
    </message>
    <message>
        <source>The graph is cut into one partition per task. Every edge that crosses from one task to another becomes a pair of nodes: a &lt;b&gt;_Send&lt;/b&gt; on the producing task and a &lt;b&gt;_Recv&lt;/b&gt; on the consuming one, which meet under the same rendezvous key. The dashed orange edges are those pairs.</source>
        <translation>图被切分成每个任务一个分区。每条跨越任务的边都变成一对节点：产生数据的任务上的 &lt;b&gt;_Send&lt;/b&gt; 和使用数据的任务上的 &lt;b&gt;_Recv&lt;/b&gt;，它们通过同一个 rendezvous 键相遇。橙色虚线就是这些节点对。</translation>
    </message>
    <message>
        <source>%1 packed tensors (%2)</source>
        <translation>%1 个打包的张量（%2）</translation>
    </message>
    <message>
        <source>%1 → %2: %3, %4</source>
        <translation>%1 → %2：%3，%4</translation>
    </message>
    <message>
        <source>Nothing crosses tasks: the whole step runs on one task.</source>
        <translation>没有数据跨越任务：整个步骤在一个任务上运行。</translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s) cross tasks in each step, %1 in all:</source>
        <translation><numerusform>每一步有 %n 个张量跨越任务，共 %1：</numerusform></translation>
    </message>
    <message>
        <source>ClusterLab packs the tensors one device sends to another task into a single message (&lt;b&gt;_PackTensors&lt;/b&gt;, unpacked on arrival), so a step makes fewer calls.</source>
        <translation>ClusterLab 把一个设备发往另一个任务的张量打包成一条消息（&lt;b&gt;_PackTensors&lt;/b&gt;，到达后再拆开），这样每一步的调用更少。</translation>
    </message>
    <message>
        <source>The master sends each task its partition once (&lt;b&gt;RegisterGraph&lt;/b&gt;). The task builds a kernel for every node and returns a handle. Later steps with the same fetches only say "run handle H as step S" (&lt;b&gt;RunGraph&lt;/b&gt;): the graph is not sent again.</source>
        <translation>master 把每个任务的分区只发送一次（&lt;b&gt;RegisterGraph&lt;/b&gt;）。任务为每个节点创建 kernel 并返回一个句柄。之后 fetch 相同的步骤只需要说“把句柄 H 作为第 S 步运行”（&lt;b&gt;RunGraph&lt;/b&gt;）：图不会再次发送。</translation>
    </message>
    <message>
        <source>The master calls RunGraph on every task at once. Inside a task a node runs as soon as all its inputs are ready; a &lt;b&gt;_Recv&lt;/b&gt; waits until the tensor of its &lt;b&gt;_Send&lt;/b&gt; arrives over gRPC. Tokens show tensors moving along edges; a node lights up while it runs. Use Step to go one node at a time.</source>
        <translation>master 同时在每个任务上调用 RunGraph。在任务内部，一个节点的所有输入就绪后它就立即运行；&lt;b&gt;_Recv&lt;/b&gt; 会一直等待，直到对应 &lt;b&gt;_Send&lt;/b&gt; 的张量通过 gRPC 到达。圆点表示沿着边移动的张量；正在运行的节点会高亮。用“单步”一次前进一个节点。</translation>
    </message>
    <message>
        <source>For this walkthrough the placeholders were fed with zeros: %1.</source>
        <translation>在这次演示中，占位符（placeholder）被填入了全零：%1。</translation>
    </message>
    <message>
        <source>Every partition has finished, so the step is over. The master collects the fetched tensors and returns them to the client:</source>
        <translation>所有分区都已完成，这一步结束。master 收集取回的张量并返回给客户端：</translation>
    </message>
    <message>
        <source>The walkthrough ran on a private cluster in this window (one server per task on 127.0.0.1), so a run in progress is not disturbed. The timeline shows what each device did in the traced steps.</source>
        <translation>这次演示运行在本窗口内的一个私有集群上（每个任务一个 server，地址为 127.0.0.1），因此不会干扰正在进行的运行。时间线显示了每个设备在被跟踪的步骤中做了什么。</translation>
    </message>
    <message>
        <source>hands its tensor to the rendezvous; the other task takes it with a RecvTensor call (or, for a task that only sends, in the reply to RunGraph).</source>
        <translation>把它的张量交给 rendezvous；另一个任务通过 RecvTensor 调用取走它（如果这个任务只发送数据，则放在 RunGraph 的回复中）。</translation>
    </message>
    <message>
        <source>packs the tensors bound for one task into a single message.</source>
        <translation>把发往同一个任务的张量打包成一条消息。</translation>
    </message>
    <message>
        <source>unpacks a message into the tensors it carries.</source>
        <translation>把一条消息拆开成它携带的张量。</translation>
    </message>
    <message>
        <source>is a variable: its value lives in this task's memory between steps.</source>
        <translation>是一个变量：它的值在步骤之间保存在这个任务的内存中。</translation>
    </message>
    <message>
        <source>reads the variable's current value.</source>
        <translation>读取变量的当前值。</translation>
    </message>
    <message>
        <source>updates a variable in place, on the task that stores it.</source>
        <translation>在保存变量的任务上原地更新这个变量。</translation>
    </message>
    <message>
        <source>holds the value the client fed.</source>
        <translation>保存客户端喂入（feed）的值。</translation>
    </message>
    <message>
        <source>does nothing itself; it only waits for what it depends on (a train op is such a node).</source>
        <translation>本身什么也不做，只等待它所依赖的节点（训练操作 train op 就是这样的节点）。</translation>
    </message>
    <message>
        <source>computes %1 from its inputs.</source>
        <translation>根据输入计算 %1。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; (%2) on %3 %4</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;（%2）在 %3 上：%4</translation>
    </message>
    <message>
        <source>has received a tensor from another task over gRPC; it was waiting for it since the step began.</source>
        <translation>已经通过 gRPC 收到来自另一个任务的张量；它从这一步开始时就一直在等待。</translation>
    </message>
</context>
<context>
    <name>clab::ui::TimelineView</name>
    <message>
        <source>Zoom in</source>
        <translation>放大</translation>
    </message>
    <message>
        <source>Zoom out</source>
        <translation>缩小</translation>
    </message>
    <message>
        <source>Export Chrome trace…</source>
        <translation>导出 Chrome trace…</translation>
    </message>
    <message>
        <source>Export Chrome trace</source>
        <translation>导出 Chrome trace</translation>
    </message>
    <message>
        <source>Chrome trace (*.json)</source>
        <translation>Chrome trace (*.json)</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>%1 step(s), %2 device(s), %3 us; blue: compute, orange: transfer</source>
        <translation>%1 个步骤，%2 个设备，%3 微秒；蓝色：计算，橙色：传输</translation>
    </message>
</context>
</TS>
