<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>QObject</name>
    <message>
        <source>The example was not opened.</source>
        <translation>示例没有打开。</translation>
    </message>
    <message>
        <source>Start the run first.</source>
        <translation>请先开始运行。</translation>
    </message>
    <message>
        <source>%1 is not running.</source>
        <translation>%1 没有在运行。</translation>
    </message>
    <message>
        <source>%1 cannot be restarted.</source>
        <translation>%1 无法重启。</translation>
    </message>
    <message>
        <source>The seed program has no updates to synchronise: open a training example.</source>
        <translation>种子程序没有需要同步的更新：请打开一个训练示例。</translation>
    </message>
    <message>
        <source>Unknown lesson action.</source>
        <translation>未知的课程操作。</translation>
    </message>
</context>
<context>
    <name>QPlatformTheme</name>
    <message>
        <source>OK</source>
        <translation>确定</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>放弃</translation>
    </message>
    <message>
        <source>Yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>No</source>
        <translation>否</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Help</source>
        <translation>帮助</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>Don&apos;t Save</source>
        <translation>不保存</translation>
    </message>
    <message>
        <source>Save All</source>
        <translation>全部保存</translation>
    </message>
    <message>
        <source>Abort</source>
        <translation>中止</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Ignore</source>
        <translation>忽略</translation>
    </message>
</context>
<context>
    <name>TaskLiveText</name>
    <message>
        <source>%1, step %2</source>
        <translation>%1，第 %2 步</translation>
    </message>
    <message>
        <source>%1 (restored from %2 at step %3)</source>
        <translation>%1（从 %2 恢复，第 %3 步）</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>killed (SIGKILL)</source>
        <translation>已被终止（SIGKILL）</translation>
    </message>
    <message>
        <source>crashed (%1)</source>
        <translation>已崩溃（%1）</translation>
    </message>
    <message>
        <source>finished at step %1</source>
        <translation>已完成，第 %1 步</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>exited %1</source>
        <translation>已退出，状态 %1</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>unreachable (its event stream was lost)</source>
        <translation>无法连接（事件流已断开）</translation>
    </message>
    <message>
        <source>recovering</source>
        <translation>正在恢复</translation>
    </message>
    <message>
        <source>recovering after %1</source>
        <translation>%1 后正在恢复</translation>
    </message>
    <message>
        <source>listening</source>
        <translation>正在监听</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>正在等待</translation>
    </message>
    <message numerus="yes">
        <source>waiting for the chief to initialise %n variable(s)</source>
        <translation>
            <numerusform>等待 chief 初始化 %n 个变量</numerusform>
        </translation>
    </message>
    <message>
        <source>initialising</source>
        <translation>正在初始化</translation>
    </message>
    <message>
        <source>model ready</source>
        <translation>模型就绪</translation>
    </message>
    <message>
        <source>no steps</source>
        <translation>没有新的步</translation>
    </message>
    <message>
        <source>training</source>
        <translation>训练中</translation>
    </message>
    <message>
        <source>not running</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>unreachable: its host name does not resolve</source>
        <translation>无法连接：主机名无法解析</translation>
    </message>
    <message>
        <source>unreachable: nothing listens on its port</source>
        <translation>无法连接：该端口上没有程序在监听</translation>
    </message>
    <message>
        <source>unreachable: its host does not answer</source>
        <translation>无法连接：主机没有应答</translation>
    </message>
    <message>
        <source>not a gRPC server: another program has its port</source>
        <translation>不是 gRPC 服务器：该端口被另一个程序占用</translation>
    </message>
    <message>
        <source>not a ClusterLab task: a gRPC server without ClusterLab&apos;s event stream</source>
        <translation>不是 ClusterLab 任务：这个 gRPC 服务器没有 ClusterLab 的事件流</translation>
    </message>
    <message>
        <source>a TensorFlow server: it runs, but has no event stream to watch</source>
        <translation>TensorFlow 服务器：它在运行，但没有可观察的事件流</translation>
    </message>
</context>
<context>
    <name>clab::ui::BuilderDialog</name>
    <message>
        <source>Add a dense layer</source>
        <translation>添加全连接层</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Units</source>
        <translation>单元数</translation>
    </message>
    <message>
        <source>Activation</source>
        <translation>激活函数</translation>
    </message>
    <message>
        <source>Name scope</source>
        <translation>名称作用域</translation>
    </message>
    <message>
        <source>Add a loss</source>
        <translation>添加损失</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Logits / predictions</source>
        <translation>logits / 预测值</translation>
    </message>
    <message>
        <source>Labels</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Add an optimizer</source>
        <translation>添加优化器</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>sparse softmax cross-entropy</source>
        <translation>稀疏 softmax 交叉熵</translation>
    </message>
    <message>
        <source>mean squared error</source>
        <translation>均方误差</translation>
    </message>
</context>
<context>
    <name>clab::ui::CheckpointChoice</name>
    <message>
        <source>ok, %1 tensors</source>
        <translation>完好，%1 个张量</translation>
    </message>
    <message>
        <source>%1 is not listed in %2</source>
        <translation>%1 未列在 %2 中</translation>
    </message>
    <message>
        <source>Cannot restore from %1: %2</source>
        <translation>无法从 %1 恢复：%2</translation>
    </message>
    <message>
        <source>Cannot rewrite %1: the checkpoint directory %2 is not writable</source>
        <translation>无法改写 %1：检查点目录 %2 不可写</translation>
    </message>
    <message>
        <source>Cannot rewrite %1: %2</source>
        <translation>无法改写 %1：%2</translation>
    </message>
</context>
<context>
    <name>clab::ui::CheckpointsView</name>
    <message>
        <source>Restore on next start</source>
        <translation>下次启动时恢复</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Written</source>
        <translation>写入时间</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Prefix</source>
        <translation>前缀</translation>
    </message>
    <message>
        <source>Tensor</source>
        <translation>张量</translation>
    </message>
    <message>
        <source>Dtype</source>
        <translation>数据类型</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>Values</source>
        <translation>值</translation>
    </message>
    <message>
        <source>No checkpoint directory: set one in the run settings to have the chief save checkpoints.</source>
        <translation>没有检查点目录：在运行设置中设定一个，chief 才会保存检查点。</translation>
    </message>
    <message>
        <source>%1: no checkpoints yet</source>
        <translation>%1：还没有检查点</translation>
    </message>
    <message>
        <source>The next run restores from this checkpoint</source>
        <translation>下次运行将从这个检查点恢复</translation>
    </message>
    <message>
        <source>%1: %2 checkpoints (newest first)</source>
        <translation>%1：%2 个检查点（最新的在前）</translation>
    </message>
    <message>
        <source>Stop the run first: its chief rewrites the checkpoint state each time it saves</source>
        <translation>请先停止运行：它的 chief 每次保存都会改写检查点状态</translation>
    </message>
    <message>
        <source>No checkpoint is selected</source>
        <translation>没有选中检查点</translation>
    </message>
    <message>
        <source>The next run starts from the initializers</source>
        <translation>下次运行将从初始值开始</translation>
    </message>
    <message>
        <source>Next run restores from %1 (step %2)</source>
        <translation>下次运行将从 %1 恢复（第 %2 步）</translation>
    </message>
    <message>
        <source>%1 is DAMAGED (%2): the next run starts from the initializers</source>
        <translation>%1 已损坏（%2）：下次运行将从初始值开始</translation>
    </message>
    <message>
        <source>%1 is DAMAGED (%2): the next run restores %3 (step %4) instead</source>
        <translation>%1 已损坏（%2）：下次运行将改为恢复 %3（第 %4 步）</translation>
    </message>
    <message>
        <source>Cannot restore from this checkpoint</source>
        <translation>无法从这个检查点恢复</translation>
    </message>
    <message>
        <source>Make the next run&apos;s chief restore from the selected checkpoint</source>
        <translation>让下次运行的 chief 从选中的检查点恢复</translation>
    </message>
</context>
<context>
    <name>clab::ui::ClusterScene</name>
    <message>
        <source>not running</source>
        <translation>未运行</translation>
    </message>
</context>
<context>
    <name>clab::ui::ConsolePane</name>
    <message>
        <source>All levels</source>
        <translation>所有级别</translation>
    </message>
    <message>
        <source>Warnings and errors</source>
        <translation>警告和错误</translation>
    </message>
    <message>
        <source>Errors</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Search (task, hook or text)</source>
        <translation>搜索（任务、钩子或文本）</translation>
    </message>
    <message>
        <source>Search (hook or text)</source>
        <translation>搜索（钩子或文本）</translation>
    </message>
    <message>
        <source>Show:</source>
        <translation>显示：</translation>
    </message>
    <message>
        <source>All sources</source>
        <translation>所有来源</translation>
    </message>
    <message>
        <source>Show the lines of one source only: the log, a hook, the process&apos;s output</source>
        <translation>只显示一个来源的行：日志、某个钩子或进程的输出</translation>
    </message>
    <message>
        <source>Collapse step counters</source>
        <translation>折叠步数计数器</translation>
    </message>
    <message>
        <source>Show each task&apos;s latest step-counter line once, at the bottom, with how many there were</source>
        <translation>每个任务的最新步数计数行只在底部显示一次，并注明共有多少行</translation>
    </message>
    <message>
        <source>Keep the newest line in view. Scrolling up pauses; new lines wait until you follow again.</source>
        <translation>保持最新一行可见。向上滚动即暂停；新行会等待，直到再次跟随。</translation>
    </message>
    <message>
        <source>Follow</source>
        <translation>跟随</translation>
    </message>
    <message>
        <source>Follow (%1 new)</source>
        <translation>跟随（%1 条新行）</translation>
    </message>
</context>
<context>
    <name>clab::ui::ConsoleView</name>
    <message>
        <source>All</source>
        <translation>全部</translation>
    </message>
</context>
<context>
    <name>clab::ui::DashboardView</name>
    <message>
        <source>global step -</source>
        <translation>全局步 -</translation>
    </message>
    <message>
        <source>%1 steps/s</source>
        <translation>%1 步/秒</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Global step</source>
        <translation>全局步</translation>
    </message>
    <message>
        <source>Steps/s</source>
        <translation>步/秒</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>steps/s (all workers)</source>
        <translation>步/秒（所有 worker）</translation>
    </message>
    <message>
        <source>Training speed</source>
        <translation>训练速度</translation>
    </message>
    <message>
        <source>fault injected</source>
        <translation>注入故障</translation>
    </message>
    <message>
        <source>step failed</source>
        <translation>步失败</translation>
    </message>
    <message>
        <source>recovered</source>
        <translation>已恢复</translation>
    </message>
    <message>
        <source>seconds since start</source>
        <translation>开始后的秒数</translation>
    </message>
    <message>
        <source>steps/s</source>
        <translation>步/秒</translation>
    </message>
    <message>
        <source>its last output is in the Console</source>
        <translation>最后的输出在控制台中</translation>
    </message>
    <message>
        <source> (waiting for: %1)</source>
        <translation>（等待：%1）</translation>
    </message>
    <message>
        <source>global step %1</source>
        <translation>全局步 %1</translation>
    </message>
</context>
<context>
    <name>clab::ui::DeviceFunctionDialog</name>
    <message>
        <source>round robin (TensorFlow&apos;s default)</source>
        <translation>轮询（TensorFlow 默认）</translation>
    </message>
    <message>
        <source>greedy: the ps with the fewest bytes so far</source>
        <translation>贪心：选目前字节数最少的 ps</translation>
    </message>
    <message>
        <source>ps tasks</source>
        <translation>ps 任务数</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>Worker device</source>
        <translation>工作节点设备</translation>
    </message>
</context>
<context>
    <name>clab::ui::DeviceInfo</name>
    <message>
        <source>memory unknown</source>
        <translation>内存未知</translation>
    </message>
</context>
<context>
    <name>clab::ui::ExampleProjects</name>
    <message>
        <source>Digits CNN on a ps and two workers</source>
        <translation>手写数字 CNN：一个参数服务器和两个工作节点</translation>
    </message>
    <message>
        <source>Digits MLP on a ps and two workers</source>
        <translation>手写数字 MLP：一个参数服务器和两个工作节点</translation>
    </message>
    <message>
        <source>Softmax regression on Iris, a ps and two workers</source>
        <translation>鸢尾花多项逻辑回归：一个参数服务器和两个工作节点</translation>
    </message>
    <message>
        <source>Linear regression on synthetic data, synchronous replicas</source>
        <translation>合成数据上的线性回归，同步副本</translation>
    </message>
    <message>
        <source>Seed on two workers, 20,000 steps, with checkpoints</source>
        <translation>种子程序：两个工作节点，20,000 步，带检查点</translation>
    </message>
    <message>
        <source>Seed: x . w on a ps and a worker</source>
        <translation>种子程序：在一个参数服务器和一个工作节点上计算 x . w</translation>
    </message>
</context>
<context>
    <name>clab::ui::GraphBuilders</name>
    <message>
        <source>Add the global step</source>
        <translation>添加全局步</translation>
    </message>
    <message>
        <source>Add dense layer %1 (%2 units, %3)</source>
        <translation>添加全连接层 %1（%2 个单元，%3）</translation>
    </message>
    <message>
        <source>Add loss (%1)</source>
        <translation>添加损失（%1）</translation>
    </message>
    <message>
        <source>Add optimizer %1 (learning rate %2)</source>
        <translation>添加优化器 %1（学习率 %2）</translation>
    </message>
</context>
<context>
    <name>clab::ui::GraphDocument</name>
    <message>
        <source>%1 nodes</source>
        <translation>%1 个节点</translation>
    </message>
    <message>
        <source>Clear the device of %1</source>
        <translation>清除 %1 的设备</translation>
    </message>
    <message>
        <source>Place %1 on %2</source>
        <translation>把 %1 放到 %2</translation>
    </message>
</context>
<context>
    <name>clab::ui::GraphEditor</name>
    <message>
        <source>One colour per task; grey: no device</source>
        <translation>每个任务一种颜色；灰色：没有设备</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Cannot add the node: %1</source>
        <translation>无法添加节点：%1</translation>
    </message>
    <message>
        <source>Import a graph</source>
        <translation>导入计算图</translation>
    </message>
    <message>
        <source>GraphDef (*.pbtxt *.pb *.txt);;All files (*)</source>
        <translation>GraphDef (*.pbtxt *.pb *.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Cannot import the graph</source>
        <translation>无法导入计算图</translation>
    </message>
    <message>
        <source>Export the graph</source>
        <translation>导出计算图</translation>
    </message>
    <message>
        <source>Text GraphDef (*.pbtxt);;Binary GraphDef (*.pb)</source>
        <translation>文本 GraphDef (*.pbtxt);;二进制 GraphDef (*.pb)</translation>
    </message>
    <message>
        <source>Cannot export the graph</source>
        <translation>无法导出计算图</translation>
    </message>
    <message>
        <source>No node named like &apos;%1&apos;</source>
        <translation>没有名称类似“%1”的节点</translation>
    </message>
    <message>
        <source>Cannot place the graph: %1</source>
        <translation>无法放置计算图：%1</translation>
    </message>
    <message>
        <source>Cannot apply the device function</source>
        <translation>无法应用设备函数</translation>
    </message>
    <message>
        <source>Select the nodes to place first</source>
        <translation>请先选中要放置的节点</translation>
    </message>
    <message>
        <source>Device of the selection</source>
        <translation>选中节点的设备</translation>
    </message>
    <message>
        <source>Device for %1 node(s) (empty: none)</source>
        <translation>%1 个节点的设备（留空：无）</translation>
    </message>
    <message>
        <source>Cannot set the device</source>
        <translation>无法设置设备</translation>
    </message>
    <message>
        <source>Cannot place the graph</source>
        <translation>无法放置计算图</translation>
    </message>
    <message>
        <source>Cannot add the global step</source>
        <translation>无法添加全局步</translation>
    </message>
    <message>
        <source>Import...</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Export...</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Layout</source>
        <translation>布局</translation>
    </message>
    <message>
        <source>Lay the graph out again, inputs to the left</source>
        <translation>重新布局计算图，输入在左</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>适应窗口</translation>
    </message>
    <message>
        <source>Show the whole graph</source>
        <translation>显示整个计算图</translation>
    </message>
    <message>
        <source>Collapse</source>
        <translation>折叠</translation>
    </message>
    <message>
        <source>Show each top-level name scope as one box (double-click a box, or right-click a node, to change one)</source>
        <translation>把每个顶层名称作用域显示为一个方框（双击方框或右键单击节点可单独切换）</translation>
    </message>
    <message>
        <source>Expand</source>
        <translation>展开</translation>
    </message>
    <message>
        <source>Show every node of every name scope</source>
        <translation>显示所有名称作用域中的每个节点</translation>
    </message>
    <message>
        <source>Find node</source>
        <translation>查找节点</translation>
    </message>
    <message>
        <source> Colour by </source>
        <translation> 着色依据 </translation>
    </message>
    <message>
        <source>requested device</source>
        <translation>请求的设备</translation>
    </message>
    <message>
        <source>placed device</source>
        <translation>放置的设备</translation>
    </message>
    <message>
        <source>Put variables on the ps tasks (round robin) and every other op on /job:worker/task:0, as tf.train.replica_device_setter does, then show where the Placer puts each node</source>
        <translation>像 tf.train.replica_device_setter 那样把变量（轮询）放到 ps 任务上、其余运算放到 /job:worker/task:0，然后显示 Placer 把每个节点放在哪里</translation>
    </message>
    <message>
        <source>Device...</source>
        <translation>设备…</translation>
    </message>
    <message>
        <source>Set the requested device of every selected node at once</source>
        <translation>一次设定所有选中节点请求的设备</translation>
    </message>
    <message>
        <source>Place</source>
        <translation>放置</translation>
    </message>
    <message>
        <source>Run the engine&apos;s Placer on the project&apos;s tasks and colour nodes by where they land</source>
        <translation>在项目的任务上运行引擎的 Placer，并按节点落到的位置着色</translation>
    </message>
    <message>
        <source>Dense layer...</source>
        <translation>全连接层…</translation>
    </message>
    <message>
        <source>Loss...</source>
        <translation>损失…</translation>
    </message>
    <message>
        <source>Optimizer...</source>
        <translation>优化器…</translation>
    </message>
    <message>
        <source>Global step</source>
        <translation>全局步</translation>
    </message>
    <message>
        <source>Build</source>
        <translation>构建</translation>
    </message>
    <message>
        <source>Add a dense layer, a loss, an optimizer (gradients and apply ops) or the global step</source>
        <translation>添加全连接层、损失、优化器（梯度与更新运算）或全局步</translation>
    </message>
    <message>
        <source>Teach</source>
        <translation>教学</translation>
    </message>
    <message>
        <source>Walk through one distributed step of this graph: prune, place, partition, register, run</source>
        <translation>逐步讲解这个计算图的一次分布式单步：剪枝、放置、分区、注册、运行</translation>
    </message>
    <message>
        <source>The project&apos;s graph: %1 nodes</source>
        <translation>项目的计算图：%1 个节点</translation>
    </message>
    <message>
        <source>The project&apos;s graph cannot be read: %1</source>
        <translation>无法读取项目的计算图：%1</translation>
    </message>
    <message>
        <source>The graph the %1 program builds on worker 0: %2 nodes</source>
        <translation>%1 程序在 worker 0 上构建的计算图：%2 个节点</translation>
    </message>
    <message>
        <source>Import %1</source>
        <translation>导入 %1</translation>
    </message>
    <message>
        <source>Imported %1: %2 nodes</source>
        <translation>已导入 %1：%2 个节点</translation>
    </message>
    <message>
        <source>The cluster has no ps task: add one on the cluster canvas first.</source>
        <translation>集群没有 ps 任务：请先在集群画布上添加一个。</translation>
    </message>
    <message numerus="yes">
        <source>Apply replica_device_setter (%n ps task(s), %1)</source>
        <translation>
            <numerusform>应用 replica_device_setter（%n 个 ps 任务，%1）</numerusform>
        </translation>
    </message>
    <message>
        <source>greedy</source>
        <translation>贪心</translation>
    </message>
    <message>
        <source>round robin</source>
        <translation>轮询</translation>
    </message>
    <message numerus="yes">
        <source>replica_device_setter over %n ps task(s); colours show where the Placer puts each node</source>
        <translation>
            <numerusform>replica_device_setter 作用于 %n 个 ps 任务；颜色表示 Placer 把每个节点放在哪里</numerusform>
        </translation>
    </message>
    <message>
        <source>replica_device_setter applied; the graph cannot be placed yet: %1</source>
        <translation>已应用 replica_device_setter；计算图还无法放置：%1</translation>
    </message>
    <message>
        <source>Cannot build: %1</source>
        <translation>无法构建：%1</translation>
    </message>
    <message>
        <source>%1: %2 new nodes, ends in %3</source>
        <translation>%1：新增 %2 个节点，终点为 %3</translation>
    </message>
    <message>
        <source>Placed on the project&apos;s tasks: a step of %1 sends %2 tensor(s) across tasks, %3 in all (dashed orange: _Send/_Recv pairs)</source>
        <translation>已放置到项目的任务上：%1 的一步在任务间发送 %2 个张量，共 %3（橙色虚线：_Send/_Recv 对）</translation>
    </message>
    <message>
        <source>Placement of the running graph by %1</source>
        <translation>%1 上运行中计算图的放置</translation>
    </message>
    <message>
        <source>no device  (%1)</source>
        <translation>无设备  (%1)</translation>
    </message>
    <message>
        <source>No problems: the engine accepts this graph.</source>
        <translation>没有问题：引擎接受这个计算图。</translation>
    </message>
</context>
<context>
    <name>clab::ui::GraphMaximiser</name>
    <message>
        <source>&amp;Maximise graph</source>
        <translation>最大化计算图(&amp;M)</translation>
    </message>
    <message>
        <source>Give the Graph tab the whole window: the cluster canvas and the side panels make way</source>
        <translation>让“计算图”标签页占满整个窗口：集群画布和侧边面板让出位置</translation>
    </message>
</context>
<context>
    <name>clab::ui::GraphMinimap</name>
    <message>
        <source>The whole graph: click to go there</source>
        <translation>整个计算图：单击可跳转到该处</translation>
    </message>
</context>
<context>
    <name>clab::ui::GraphScene</name>
    <message>
        <source>Cannot connect: %1</source>
        <translation>无法连接：%1</translation>
    </message>
</context>
<context>
    <name>clab::ui::GraphView</name>
    <message>
        <source>Cannot add the node: %1</source>
        <translation>无法添加节点：%1</translation>
    </message>
</context>
<context>
    <name>clab::ui::HostRunController</name>
    <message>
        <source>  (port-forward)</source>
        <translation>  （端口转发）</translation>
    </message>
    <message>
        <source>  (this job)</source>
        <translation>  （本作业）</translation>
    </message>
    <message>
        <source>Attach through &amp;port-forward</source>
        <translation>通过端口转发连接(&amp;P)</translation>
    </message>
    <message>
        <source>Cannot run on the hosts</source>
        <translation>无法在主机上运行</translation>
    </message>
    <message>
        <source>Cannot write the manifests</source>
        <translation>无法写出清单</translation>
    </message>
    <message>
        <source>Forwarding the pods&apos; ports with kubectl...</source>
        <translation>正在用 kubectl 转发各 Pod 的端口……</translation>
    </message>
    <message>
        <source>Run on &amp;hosts...</source>
        <translation>在主机上运行(&amp;H)...</translation>
    </message>
    <message>
        <source>Start the tasks on their hosts over ssh, or as a SLURM job, or export Kubernetes manifests</source>
        <translation>通过 ssh 在各自主机上启动任务，或作为 SLURM 作业运行，或导出 Kubernetes 清单</translation>
    </message>
    <message>
        <source>Running on the hosts: %1 of %2 tasks started</source>
        <translation>在主机上运行：已启动 %1 个任务（共 %2 个）</translation>
    </message>
    <message>
        <source>Starting %1 tasks via %2...</source>
        <translation>正在通过 %2 启动 %1 个任务……</translation>
    </message>
    <message>
        <source>Stop exactly the tasks the run on hosts started (or cancel its job)</source>
        <translation>只停止这次主机运行启动的任务（或取消其作业）</translation>
    </message>
    <message>
        <source>Stop on h&amp;osts</source>
        <translation>停止主机上的运行(&amp;O)</translation>
    </message>
    <message>
        <source>Stop the &amp;port-forward</source>
        <translation>停止端口转发(&amp;P)</translation>
    </message>
    <message>
        <source>Stopping the run on the hosts...</source>
        <translation>正在停止主机上的运行……</translation>
    </message>
    <message>
        <source>The run on the hosts failed: %1</source>
        <translation>主机上的运行失败：%1</translation>
    </message>
    <message>
        <source>The run on the hosts is over</source>
        <translation>主机上的运行已结束</translation>
    </message>
    <message>
        <source>Watch the project&apos;s pods in Kubernetes through kubectl port-forward</source>
        <translation>通过 kubectl port-forward 观察项目在 Kubernetes 中的 Pod</translation>
    </message>
    <message>
        <source>Watching %1 pods through kubectl port-forward</source>
        <translation>正在通过 kubectl port-forward 观察 %1 个 Pod</translation>
    </message>
    <message>
        <source>Write the Kubernetes manifests to</source>
        <translation>把 Kubernetes 清单写到</translation>
    </message>
    <message>
        <source>Wrote %1 manifest files to %2: kubectl apply -f %2</source>
        <translation>已把 %1 个清单文件写到 %2：kubectl apply -f %2</translation>
    </message>
    <message>
        <source>ended with status %1</source>
        <translation>以状态 %1 结束</translation>
    </message>
    <message>
        <source>job %1: %2 (%3)</source>
        <translation>作业 %1：%2（%3）</translation>
    </message>
    <message>
        <source>job %1: %2</source>
        <translation>作业 %1：%2</translation>
    </message>
    <message>
        <source>started on %1 (pid %2)</source>
        <translation>已在 %1 上启动（进程号 %2）</translation>
    </message>
    <message>
        <source>stopped (status %1)</source>
        <translation>已停止（状态 %1）</translation>
    </message>
    <message>
        <source>the cluster has problems: %1</source>
        <translation>集群有问题：%1</translation>
    </message>
    <message>
        <source>wrote %1</source>
        <translation>已写出 %1</translation>
    </message>
</context>
<context>
    <name>clab::ui::LaunchSettingsDialog</name>
    <message>
        <source>%1: the SSH port &apos;%2&apos; is not a port (1-65535)</source>
        <translation>%1：SSH 端口“%2”不是有效端口（1-65535）</translation>
    </message>
    <message>
        <source>A SLURM job</source>
        <translation>SLURM 作业</translation>
    </message>
    <message>
        <source>CPU:</source>
        <translation>CPU：</translation>
    </message>
    <message>
        <source>Checkpoint directory</source>
        <translation>检查点目录</translation>
    </message>
    <message>
        <source>Checkpoint volume claim:</source>
        <translation>检查点卷声明：</translation>
    </message>
    <message>
        <source>ClusterLab program</source>
        <translation>ClusterLab 程序</translation>
    </message>
    <message>
        <source>Configuration file:</source>
        <translation>配置文件：</translation>
    </message>
    <message>
        <source>your own (~/.ssh/config)</source>
        <translation>你自己的（~/.ssh/config）</translation>
    </message>
    <message>
        <source>Copy this ClusterLab to each host (scp)</source>
        <translation>把本机的 ClusterLab 复制到每台主机（scp）</translation>
    </message>
    <message>
        <source>Data directory</source>
        <translation>数据目录</translation>
    </message>
    <message>
        <source>Every host without a row of its own</source>
        <translation>所有没有单独一行的主机</translation>
    </message>
    <message>
        <source>First port:</source>
        <translation>起始端口：</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Hosts (empty fields: what ssh and the host decide)</source>
        <translation>主机（留空的字段由 ssh 和主机决定）</translation>
    </message>
    <message>
        <source>Hosts over SSH</source>
        <translation>通过 SSH 的主机</translation>
    </message>
    <message>
        <source>Image:</source>
        <translation>镜像：</translation>
    </message>
    <message>
        <source>Job directory:</source>
        <translation>作业目录：</translation>
    </message>
    <message>
        <source>Kubernetes (export manifests)</source>
        <translation>Kubernetes（导出清单）</translation>
    </message>
    <message>
        <source>Kubernetes</source>
        <translation>Kubernetes</translation>
    </message>
    <message>
        <source>Launch method:</source>
        <translation>启动方式：</translation>
    </message>
    <message>
        <source>Memory:</source>
        <translation>内存：</translation>
    </message>
    <message>
        <source>More tasks than CPUs</source>
        <translation>任务数可多于 CPU 数</translation>
    </message>
    <message>
        <source>Namespace:</source>
        <translation>命名空间：</translation>
    </message>
    <message>
        <source>Partition:</source>
        <translation>分区：</translation>
    </message>
    <message>
        <source>Run on hosts</source>
        <translation>在主机上运行</translation>
    </message>
    <message>
        <source>SLURM</source>
        <translation>SLURM</translation>
    </message>
    <message>
        <source>SSH port</source>
        <translation>SSH 端口</translation>
    </message>
    <message>
        <source>SSH</source>
        <translation>SSH</translation>
    </message>
    <message>
        <source>Start a failed task again</source>
        <translation>失败的任务重新启动</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Time limit:</source>
        <translation>时间限制：</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>beside the project</source>
        <translation>项目文件旁边</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>the default</source>
        <translation>默认分区</translation>
    </message>
    <message>
        <source>the partition&apos;s</source>
        <translation>分区的默认值</translation>
    </message>
</context>
<context>
    <name>clab::ui::LessonPanel</name>
    <message>
        <source>Done.</source>
        <translation>完成。</translation>
    </message>
    <message>
        <source>Previous</source>
        <translation>上一页</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>下一页</translation>
    </message>
    <message>
        <source>page %1 of %2</source>
        <translation>第 %1 页，共 %2 页</translation>
    </message>
</context>
<context>
    <name>clab::ui::LessonScratch</name>
    <message>
        <source>Cannot make a folder for the lesson&apos;s checkpoints: %1</source>
        <translation>无法为本课的检查点创建文件夹：%1</translation>
    </message>
</context>
<context>
    <name>clab::ui::Lessons</name>
    <message>
        <source>The seed program</source>
        <translation>种子程序</translation>
    </message>
    <message>
        <source>Two tasks, one product</source>
        <translation>两个任务，一个乘积</translation>
    </message>
    <message>
        <source>&lt;p&gt;The seed program builds two variables, &lt;code&gt;x&lt;/code&gt; = [[1, 2, 3, 4]] and &lt;code&gt;w&lt;/code&gt; = [[2], [2], [2], [2]], inside &lt;i&gt;replica_device_setter&lt;/i&gt;, so both live on the ps. Their product &lt;code&gt;tf.matmul(x, w)&lt;/code&gt; runs on the worker, which prints [[20]] at every step.&lt;/p&gt;&lt;p&gt;The ps task only creates its server and calls &lt;i&gt;server.join()&lt;/i&gt;. The worker builds the graph and runs it in a &lt;i&gt;MonitoredTrainingSession&lt;/i&gt;.&lt;/p&gt;</source>
        <translation>&lt;p&gt;种子程序在 &lt;i&gt;replica_device_setter&lt;/i&gt; 中创建两个变量：&lt;code&gt;x&lt;/code&gt; = [[1, 2, 3, 4]] 和 &lt;code&gt;w&lt;/code&gt; = [[2], [2], [2], [2]]，所以它们都保存在 ps 上。它们的乘积 &lt;code&gt;tf.matmul(x, w)&lt;/code&gt; 在 worker 上计算，worker 每一步都打印 [[20]]。&lt;/p&gt;&lt;p&gt;ps 任务只创建自己的 server 并调用 &lt;i&gt;server.join()&lt;/i&gt;。worker 构建计算图，并在 &lt;i&gt;MonitoredTrainingSession&lt;/i&gt; 中运行它。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Open the seed example</source>
        <translation>打开种子示例</translation>
    </message>
    <message>
        <source>One step, phase by phase</source>
        <translation>一个步骤，逐个阶段</translation>
    </message>
    <message>
        <source>&lt;p&gt;Each &lt;i&gt;session.run&lt;/i&gt; goes through the master: it prunes the graph to what the fetch needs, places every node, cuts the graph into one partition per task and registers them, then runs them. x and w cross from the ps to the worker as _Send/_Recv pairs.&lt;/p&gt;&lt;p&gt;Use Step in the teaching panel to go through the phases.&lt;/p&gt;</source>
        <translation>&lt;p&gt;每次 &lt;i&gt;session.run&lt;/i&gt; 都经过 master：它把图剪枝到 fetch 所需要的部分，放置每个节点，把图切分成每个任务一个分区并注册，然后运行它们。x 和 w 以 _Send/_Recv 节点对的形式从 ps 传到 worker。&lt;/p&gt;&lt;p&gt;在教学面板中点击“单步”来逐个查看这些阶段。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Walk through one step</source>
        <translation>演示一个步骤</translation>
    </message>
    <message>
        <source>Why StopAtStepHook alone never stops it</source>
        <translation>为什么只有 StopAtStepHook 永远停不下来</translation>
    </message>
    <message>
        <source>Run the seed</source>
        <translation>运行种子程序</translation>
    </message>
    <message>
        <source>Chief and non-chief start-up</source>
        <translation>chief 与非 chief 的启动</translation>
    </message>
    <message>
        <source>Who initialises the variables</source>
        <translation>谁来初始化变量</translation>
    </message>
    <message>
        <source>&lt;p&gt;With two workers, worker 0 is the &lt;b&gt;chief&lt;/b&gt;. Its monitored session initialises the variables on the ps (or restores them from the last checkpoint) and writes checkpoints and summaries.&lt;/p&gt;&lt;p&gt;Worker 1 is not the chief: it never initialises anything. It asks the ps whether the variables are ready and waits until they are.&lt;/p&gt;</source>
        <translation>&lt;p&gt;有两个 worker 时，worker 0 是 &lt;b&gt;chief&lt;/b&gt;。它的 monitored session 初始化 ps 上的变量（或者从最近的检查点恢复它们），并写检查点和摘要（summary）。&lt;/p&gt;&lt;p&gt;worker 1 不是 chief：它从不初始化任何东西。它询问 ps 变量是否已经就绪，并一直等到就绪为止。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Open the two-worker seed</source>
        <translation>打开两个 worker 的种子示例</translation>
    </message>
    <message>
        <source>Watch the non-chief wait</source>
        <translation>观察非 chief 的等待</translation>
    </message>
    <message>
        <source>&lt;p&gt;Start the run and look at worker 1&apos;s console tab: while the chief has not initialised &lt;code&gt;x&lt;/code&gt; and &lt;code&gt;w&lt;/code&gt;, it reports &quot;Waiting for model to be ready&quot; with the variables it still needs, and the dashboard lists them. As soon as the chief&apos;s initialiser has run, both workers step.&lt;/p&gt;</source>
        <translation>&lt;p&gt;开始运行，然后查看 worker 1 的控制台标签页：在 chief 初始化 &lt;code&gt;x&lt;/code&gt; 和 &lt;code&gt;w&lt;/code&gt; 之前，它会报告“Waiting for model to be ready”以及还在等待的变量，仪表盘也会列出这些变量。chief 的初始化一旦完成，两个 worker 就都开始执行步骤。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Start the run</source>
        <translation>开始运行</translation>
    </message>
    <message>
        <source>The ps never waits</source>
        <translation>ps 从不等待</translation>
    </message>
    <message>
        <source>&lt;p&gt;A ps holds no session and runs no loop: it serves the variables to whoever asks. That is why a ps can start first, last, or be restarted without the workers&apos; programs changing.&lt;/p&gt;</source>
        <translation>&lt;p&gt;ps 不持有 session，也不运行循环：谁来请求，它就为谁提供变量。所以 ps 可以最先启动、最后启动，或者被重启，而 worker 的程序不需要任何改变。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Stop the run</source>
        <translation>停止运行</translation>
    </message>
    <message>
        <source>A ps failure and recovery</source>
        <translation>ps 故障与恢复</translation>
    </message>
    <message>
        <source>Train, then lose the ps</source>
        <translation>训练，然后失去 ps</translation>
    </message>
    <message>
        <source>Open the digits MLP</source>
        <translation>打开手写数字 MLP</translation>
    </message>
    <message>
        <source>Start training</source>
        <translation>开始训练</translation>
    </message>
    <message>
        <source>Kill the ps</source>
        <translation>杀死 ps</translation>
    </message>
    <message>
        <source>&lt;p&gt;Killing the ps (SIGKILL, as a crashed machine) loses every variable it held. The workers&apos; next steps fail with &lt;i&gt;UNAVAILABLE&lt;/i&gt;: their RunGraph and RecvTensor calls find nobody at the ps&apos;s address. The monitored sessions do not give up: they wait for the task to come back.&lt;/p&gt;</source>
        <translation>&lt;p&gt;杀死 ps（SIGKILL，就像机器崩溃一样）会丢失它保存的所有变量。worker 接下来的步骤会以 &lt;i&gt;UNAVAILABLE&lt;/i&gt; 失败：它们的 RunGraph 和 RecvTensor 调用在 ps 的地址上找不到任何人。monitored session 不会放弃：它们会等待这个任务回来。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Restart it and recover</source>
        <translation>重启并恢复</translation>
    </message>
    <message>
        <source>Restart the ps</source>
        <translation>重启 ps</translation>
    </message>
    <message>
        <source>Asynchronous versus synchronous updates</source>
        <translation>异步更新与同步更新</translation>
    </message>
    <message>
        <source>Asynchronous: every worker for itself</source>
        <translation>异步：每个 worker 各自更新</translation>
    </message>
    <message>
        <source>&lt;p&gt;By default each worker applies its gradients to the ps as soon as it has them. The global step grows by one per worker step, and a worker may compute on weights that another worker has changed meanwhile (stale gradients). It is fast, and it usually still converges.&lt;/p&gt;</source>
        <translation>&lt;p&gt;默认情况下，每个 worker 一得到梯度就把它应用到 ps 上。全局步数在每个 worker 的每一步都加一，而一个 worker 计算所用的权重可能已经被另一个 worker 改变了（过时的梯度）。这样很快，而且通常仍然能收敛。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Watch the asynchronous run</source>
        <translation>观察异步运行</translation>
    </message>
    <message>
        <source>&lt;p&gt;Start it and note the global steps per second on the dashboard.&lt;/p&gt;</source>
        <translation>&lt;p&gt;开始运行，并记下仪表盘上每秒的全局步数。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Synchronous replicas</source>
        <translation>同步副本</translation>
    </message>
    <message>
        <source>&lt;p&gt;With &lt;i&gt;SyncReplicasOptimizer&lt;/i&gt; the gradients go into an accumulator on the ps. When as many as &lt;i&gt;replicas_to_aggregate&lt;/i&gt; have arrived, the chief applies their mean once and the global step grows by one; gradients computed on older weights are dropped. Each worker then takes a token from a queue before its next step, so no worker runs ahead.&lt;/p&gt;</source>
        <translation>&lt;p&gt;使用 &lt;i&gt;SyncReplicasOptimizer&lt;/i&gt; 时，梯度先进入 ps 上的累加器。当到达的梯度数达到 &lt;i&gt;replicas_to_aggregate&lt;/i&gt; 时，chief 一次性应用它们的平均值，全局步数加一；基于旧权重计算的梯度会被丢弃。每个 worker 在下一步之前要从队列中取一个令牌，所以没有 worker 会跑在前面。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Stop and switch to synchronous replicas</source>
        <translation>停止并切换到同步副本</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>&lt;p&gt;Run again and compare the dashboards: the synchronous run makes fewer global steps per second (each waits for the slowest worker) but every update averages several minibatches.&lt;/p&gt;</source>
        <translation>&lt;p&gt;再运行一次并比较仪表盘：同步运行每秒的全局步数更少（每一步都要等最慢的 worker），但每次更新都平均了多个小批量（minibatch）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;The tutorial adds &lt;i&gt;StopAtStepHook(last_step=200)&lt;/i&gt;. The hook reads the &lt;b&gt;global step&lt;/b&gt; after every run and asks to stop once it reaches 200. But nothing in the seed&apos;s graph increments the global step: no optimizer, no &lt;i&gt;assign_add&lt;/i&gt;. It stays at 0, so the loop &lt;code&gt;while not mon_sess.should_stop()&lt;/code&gt; runs forever.&lt;/p&gt;&lt;p&gt;ClusterLab runs the global step increment with each step unless the run setting &lt;b&gt;Faithful&lt;/b&gt; is on; then it runs the graph exactly as written, the step counter warns that the global step is not increasing, and the time limit ends the run.&lt;/p&gt;</source>
        <translation>&lt;p&gt;教程中加入了 &lt;i&gt;StopAtStepHook(last_step=200)&lt;/i&gt;。这个 hook 在每次运行后读取&lt;b&gt;全局步数（global step）&lt;/b&gt;，达到 200 时请求停止。但种子程序的图中没有任何东西会增加全局步数：没有优化器，也没有 &lt;i&gt;assign_add&lt;/i&gt;。它一直是 0，所以循环 &lt;code&gt;while not mon_sess.should_stop()&lt;/code&gt; 会永远运行下去。&lt;/p&gt;&lt;p&gt;ClusterLab 默认在每一步中同时运行全局步数的自增，除非打开运行设置中的&lt;b&gt;忠实（Faithful）&lt;/b&gt;选项；打开后它完全按原样运行这个图，步数计数器会警告全局步数没有增加，最后由时间限制结束运行。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Why one ps stops scaling</source>
        <translation>为什么一个 ps 无法继续扩展</translation>
    </message>
    <message>
        <source>A cluster this machine cannot hold</source>
        <translation>本机容纳不下的集群</translation>
    </message>
    <message>
        <source>&lt;p&gt;This machine runs a few tasks. To see what a hundred workers would do, the &lt;b&gt;Simulate&lt;/b&gt; tab plays the project&apos;s step on a simulated cluster: the same partitions and messages as a real step, each worker&apos;s compute, each ps serving, each message crossing the links.&lt;/p&gt;</source>
        <translation>&lt;p&gt;本机只能运行几个任务。要看一百个 worker 会怎样，&lt;b&gt;模拟&lt;/b&gt;标签页在模拟的集群上运行项目的一步：与真实的一步相同的分区和消息，每个 worker 的计算、每个 ps 的服务、每条消息经过的链路。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Add workers to one ps</source>
        <translation>给一个 ps 增加 worker</translation>
    </message>
    <message>
        <source>&lt;p&gt;Every step, each worker reads all the weights from the ps and sends back as many bytes of gradients: 75 KiB for this MLP. With a few workers, throughput grows with them. Then the curve flattens: the ps&apos;s NIC carries every worker&apos;s bytes and is busy all the time. More workers only wait longer for it.&lt;/p&gt;&lt;p&gt;The sentence under the chart names the saturated link.&lt;/p&gt;</source>
        <translation>&lt;p&gt;每一步中，每个 worker 都从 ps 读取全部权重，再送回同样多字节的梯度：这个 MLP 是 75 KiB。worker 不多时，吞吐量随之增长。之后曲线变平：ps 的网卡承载所有 worker 的字节，一直处于忙碌状态。再多的 worker 只会等得更久。&lt;/p&gt;&lt;p&gt;图表下面的那句话指出了饱和的链路。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Simulate 1 to 128 workers on one ps</source>
        <translation>模拟一个 ps 上 1 到 128 个 worker</translation>
    </message>
    <message>
        <source>Add parameter servers</source>
        <translation>增加参数服务器</translation>
    </message>
    <message>
        <source>&lt;p&gt;More ps share the bytes, but replica_device_setter places whole variables, one ps each in turn. Here &lt;code&gt;hidden1/weights&lt;/code&gt; is 32 KiB of the 37.5: its ps still carries most bytes and its NIC still saturates. That is why large models partition big variables across ps.&lt;/p&gt;</source>
        <translation>&lt;p&gt;更多的 ps 可以分担字节，但 replica_device_setter 按整个变量轮流放到各个 ps 上。这里 &lt;code&gt;hidden1/weights&lt;/code&gt; 占 37.5 KiB 中的 32 KiB：它所在的 ps 仍然承载大部分字节，网卡仍然饱和。这就是大模型要把大变量切分到多个 ps 上的原因。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Simulate the same on four ps</source>
        <translation>在四个 ps 上做同样的模拟</translation>
    </message>
    <message>
        <source>Try the what-if panel</source>
        <translation>试试假设分析面板</translation>
    </message>
    <message>
        <source>&lt;p&gt;Change the link bandwidth and latency, the hosts&apos; cores and speed, or synchronous replicas, and watch where the curve bends. Links and hosts are saved with the project, and Undo takes them back.&lt;/p&gt;</source>
        <translation>&lt;p&gt;改变链路带宽和延迟、主机的核数和速度，或者改用同步副本，观察曲线在哪里拐弯。链路和主机随项目保存，撤销可以恢复原样。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Simulate synchronous replicas</source>
        <translation>模拟同步副本</translation>
    </message>
    <message>
        <source>&lt;p&gt;Open the digits MLP: a ps and two workers. The weights live on the ps; every worker step reads them and sends its gradients back.&lt;/p&gt;&lt;p&gt;For this lesson the run trains until you stop it, and the chief writes a checkpoint every %1 global steps into a scratch folder of its own.&lt;/p&gt;</source>
        <translation>&lt;p&gt;打开手写数字 MLP：一个 ps 和两个 worker。权重存放在 ps 上；worker 的每一步都读取权重，再把梯度发回去。&lt;/p&gt;&lt;p&gt;本课的运行会一直训练到你停止它为止，chief 每 %1 个全局步把一个检查点写进它自己的临时文件夹。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Start the run and watch the global step and the loss on the dashboard. The Checkpoints tab lists each checkpoint the chief writes (&lt;i&gt;model.ckpt-N&lt;/i&gt;, N its global step). Wait for the first one before you kill the ps.&lt;/p&gt;</source>
        <translation>&lt;p&gt;开始运行，在仪表板上观察全局步和损失。检查点标签页列出 chief 写下的每个检查点（&lt;i&gt;model.ckpt-N&lt;/i&gt;，N 为其全局步）。等第一个检查点出现后再终止 ps。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;The restarted ps is a new process with a new incarnation and empty memory. The workers&apos; monitored sessions create new sessions; the chief restores the variables from the last checkpoint and training goes on from the checkpoint&apos;s global step. The chief&apos;s card and the dashboard say so: &lt;i&gt;restored from model.ckpt-N at step S&lt;/i&gt;, S the global step the checkpoint holds. Steps taken after that checkpoint are lost: that is the price of the checkpoint interval.&lt;/p&gt;</source>
        <translation>&lt;p&gt;重启的 ps 是一个新进程，有新的 incarnation，内存是空的。worker 的受监控会话会创建新的会话；chief 从最后一个检查点恢复变量，训练从该检查点的全局步继续。chief 的卡片和仪表板会显示：&lt;i&gt;从 model.ckpt-N 恢复，第 S 步&lt;/i&gt;，S 是检查点保存的全局步。该检查点之后走过的步会丢失：这就是检查点间隔的代价。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>End the lesson</source>
        <translation>结束本课</translation>
    </message>
    <message>
        <source>&lt;p&gt;The run trains until it is stopped. Stop it: every task ends as &lt;i&gt;stopped&lt;/i&gt;, and the checkpoints stay in the Checkpoints tab until the window closes.&lt;/p&gt;</source>
        <translation>&lt;p&gt;这次运行会一直训练到被停止。停止它：每个任务都以&lt;i&gt;已停止&lt;/i&gt;结束，检查点会留在检查点标签页中，直到窗口关闭。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>clab::ui::MainWindow</name>
    <message>
        <source>Change the launch settings</source>
        <translation>更改启动设置</translation>
    </message>
    <message>
        <source>Kill (SIGKILL)</source>
        <translation>强制结束 (SIGKILL)</translation>
    </message>
    <message>
        <source>Restart</source>
        <translation>重启</translation>
    </message>
    <message>
        <source>Remove from the cluster</source>
        <translation>从集群中移除</translation>
    </message>
    <message>
        <source>Welcome</source>
        <translation>欢迎</translation>
    </message>
    <message>
        <source>Dashboard</source>
        <translation>仪表盘</translation>
    </message>
    <message>
        <source>Console</source>
        <translation>控制台</translation>
    </message>
    <message>
        <source>Placement</source>
        <translation>设备放置</translation>
    </message>
    <message>
        <source>Graph</source>
        <translation>计算图</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>Simulate</source>
        <translation>模拟</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Run settings</source>
        <translation>运行设置</translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation>课程</translation>
    </message>
    <message>
        <source>Untitled</source>
        <translation>未命名</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Undo %1</source>
        <translation>撤销 %1(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Redo %1</source>
        <translation>重做 %1(&amp;R)</translation>
    </message>
    <message>
        <source>Import cluster</source>
        <translation>导入集群</translation>
    </message>
    <message>
        <source>A ClusterSpec JSON, a TF_CONFIG, a Python dict {&apos;ps&apos;: [...], ...}, or ps=host:port;worker=host:port,...</source>
        <translation>ClusterSpec JSON、TF_CONFIG、Python dict {&apos;ps&apos;: [...], ...}，或 ps=host:port;worker=host:port,...</translation>
    </message>
    <message>
        <source>Cannot import the cluster</source>
        <translation>无法导入集群</translation>
    </message>
    <message>
        <source>Copied the cluster as %1</source>
        <translation>已按 %1 格式复制集群</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New</source>
        <translation>新建(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Open...</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>Save &amp;As...</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Examples</source>
        <translation>示例(&amp;E)</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>Add &amp;ps task</source>
        <translation>添加 ps 任务(&amp;P)</translation>
    </message>
    <message>
        <source>Add &amp;worker task</source>
        <translation>添加 worker 任务(&amp;W)</translation>
    </message>
    <message>
        <source>&amp;Remove task</source>
        <translation>移除任务(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Import cluster...</source>
        <translation>导入集群(&amp;I)…</translation>
    </message>
    <message>
        <source>&amp;Copy cluster as</source>
        <translation>复制集群为(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Run locally</source>
        <translation>本机运行(&amp;R)</translation>
    </message>
    <message>
        <source>Start every task as its own process on 127.0.0.1 (F5)</source>
        <translation>在 127.0.0.1 上把每个任务作为独立进程启动 (F5)</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <source>Stop the processes of this run (Shift+F5)</source>
        <translation>停止本次运行的进程 (Shift+F5)</translation>
    </message>
    <message>
        <source>Watch tasks already running at the addresses of this project, without starting anything</source>
        <translation>监视已在本项目地址上运行的任务，不启动任何进程</translation>
    </message>
    <message>
        <source>&amp;Copy start commands</source>
        <translation>复制启动命令(&amp;C)</translation>
    </message>
    <message>
        <source>The clab command line of every task, to run the cluster by hand</source>
        <translation>每个任务的 clab 命令行，用于手动运行集群</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Fit cluster</source>
        <translation>适应集群(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Lessons</source>
        <translation>课程(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;About ClusterLab</source>
        <translation>关于 ClusterLab(&amp;A)</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>Ready: press F5 to run the cluster on this machine</source>
        <translation>就绪：按 F5 在本机运行集群</translation>
    </message>
    <message>
        <source>The cluster has problems: %1</source>
        <translation>集群有问题：%1</translation>
    </message>
    <message>
        <source>Set the address of %1 to %2:%3</source>
        <translation>把 %1 的地址设为 %2:%3</translation>
    </message>
    <message>
        <source>Change the run settings</source>
        <translation>修改运行设置</translation>
    </message>
    <message>
        <source>Protect the cluster</source>
        <translation>保护集群</translation>
    </message>
    <message>
        <source>Add %1</source>
        <translation>添加 %1</translation>
    </message>
    <message>
        <source>Remove %1</source>
        <translation>移除 %1</translation>
    </message>
    <message>
        <source>Import the cluster</source>
        <translation>导入集群</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>The project has changes that are not saved. Save them?</source>
        <translation>项目有未保存的更改。要保存吗？</translation>
    </message>
    <message>
        <source>Cannot open the project</source>
        <translation>无法打开项目</translation>
    </message>
    <message>
        <source>Cannot run: %1</source>
        <translation>无法运行：%1</translation>
    </message>
    <message>
        <source>%1  (this run)</source>
        <translation>%1 (本次运行)</translation>
    </message>
    <message>
        <source>Running %1 tasks on 127.0.0.1</source>
        <translation>正在 127.0.0.1 上运行 %1 个任务</translation>
    </message>
    <message>
        <source>Attached: watching %1 tasks at their addresses</source>
        <translation>已连接：正在监视各自地址上的 %1 个任务</translation>
    </message>
    <message>
        <source>Detached: the tasks go on without being watched</source>
        <translation>已断开：任务继续运行，不再被监视</translation>
    </message>
    <message>
        <source>Stopping the run...</source>
        <translation>正在停止运行…</translation>
    </message>
    <message>
        <source>global step %1  |  %2 steps/s</source>
        <translation>全局步 %1  |  %2 步/秒</translation>
    </message>
    <message>
        <source>killed with SIGKILL from the studio</source>
        <translation>已在 Studio 中用 SIGKILL 强制结束</translation>
    </message>
    <message>
        <source>restarted from the studio</source>
        <translation>已在 Studio 中重启</translation>
    </message>
    <message>
        <source>the process ended: %1; its last output:
%2</source>
        <translation>进程已结束：%1；最后的输出：
%2</translation>
    </message>
    <message>
        <source>Run finished at global step %1</source>
        <translation>运行在全局步 %1 结束</translation>
    </message>
    <message>
        <source>Run ended with a failed worker: see the Console</source>
        <translation>运行因 worker 失败而结束：请查看控制台</translation>
    </message>
    <message>
        <source>&amp;Detach</source>
        <translation>断开(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Attach to running cluster</source>
        <translation>连接到运行中的集群(&amp;A)</translation>
    </message>
    <message>
        <source>Open project</source>
        <translation>打开项目</translation>
    </message>
    <message>
        <source>ClusterLab projects (*.clab)</source>
        <translation>ClusterLab 项目 (*.clab)</translation>
    </message>
    <message>
        <source>Cannot save the project</source>
        <translation>无法保存项目</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Save project</source>
        <translation>保存项目</translation>
    </message>
    <message>
        <source>Copied %1 start commands</source>
        <translation>已复制 %1 条启动命令</translation>
    </message>
    <message>
        <source>About ClusterLab Studio</source>
        <translation>关于 ClusterLab Studio</translation>
    </message>
    <message>
        <source>&lt;b&gt;ClusterLab Studio %1&lt;/b&gt;&lt;br&gt;Design a cluster of parameter servers and workers, run it, and watch training live.&lt;br&gt;&lt;br&gt;Qt %2, gRPC %3, protobuf %4</source>
        <translation>&lt;b&gt;ClusterLab Studio %1&lt;/b&gt;&lt;br&gt;设计由参数服务器和工作节点组成的集群，运行它，实时观察训练过程。&lt;br&gt;&lt;br&gt;Qt %2，gRPC %3，protobuf %4</translation>
    </message>
    <message>
        <source>Cannot open the example</source>
        <translation>无法打开示例</translation>
    </message>
    <message>
        <source>%1 / task %2 on %3</source>
        <translation>%1 / 任务 %2，位于 %3</translation>
    </message>
    <message>
        <source>not run: %1 is not this machine</source>
        <translation>未运行：%1 不是本机</translation>
    </message>
    <message>
        <source>some tasks are meant for other hosts (%1), and Run starts every task on this machine.</source>
        <translation>有些任务是为其他主机准备的（%1），而“运行”会在本机上启动所有任务。</translation>
    </message>
    <message>
        <source>Cannot run: %1 Use Run on hosts to start them there, or run the whole cluster here on 127.0.0.1.</source>
        <translation>无法运行：%1 请用“在主机上运行”在那些主机上启动它们，或在本机 127.0.0.1 上运行整个集群。</translation>
    </message>
    <message>
        <source>Run here on 127.0.0.1</source>
        <translation>在本机 127.0.0.1 上运行</translation>
    </message>
    <message>
        <source>Cannot attach: %1</source>
        <translation>无法连接：%1</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>%1 / task %2</source>
        <translation>%1 / 任务 %2</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
</context>
<context>
    <name>clab::ui::NodePropertiesView</name>
    <message>
        <source>Select a node to see and edit its attrs and device.

Add nodes from the palette (double-click or drag), connect an output port to an input port by dragging.</source>
        <translation>选中一个节点即可查看和编辑它的属性与设备。

从运算面板添加节点（双击或拖动），拖动输出端口到输入端口即可连线。</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>运算</translation>
    </message>
    <message>
        <source>The device the node asks for: /job:ps/task:0, /job:worker/task:1/cpu:0, or empty</source>
        <translation>节点请求的设备：/job:ps/task:0、/job:worker/task:1/cpu:0，或留空</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Placed on</source>
        <translation>放置于</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a number</source>
        <translation>“%1”不是数字</translation>
    </message>
    <message>
        <source>The value as JSON: a number, or nested lists of numbers</source>
        <translation>以 JSON 表示的值：一个数，或嵌套的数字列表</translation>
    </message>
</context>
<context>
    <name>clab::ui::NoticeBanner</name>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Tasks that cannot be watched:</source>
        <translation>无法观察的任务：</translation>
    </message>
</context>
<context>
    <name>clab::ui::OpPalette</name>
    <message>
        <source>array</source>
        <translation>数组</translation>
    </message>
    <message>
        <source>control</source>
        <translation>控制流</translation>
    </message>
    <message>
        <source>data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>internal</source>
        <translation>内部</translation>
    </message>
    <message>
        <source>logic</source>
        <translation>逻辑</translation>
    </message>
    <message>
        <source>math</source>
        <translation>数学</translation>
    </message>
    <message>
        <source>nn</source>
        <translation>神经网络</translation>
    </message>
    <message>
        <source>queue</source>
        <translation>队列</translation>
    </message>
    <message>
        <source>random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>runtime</source>
        <translation>运行时</translation>
    </message>
    <message>
        <source>saver</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>state</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>string</source>
        <translation>字符串</translation>
    </message>
    <message>
        <source>summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>training</source>
        <translation>训练辅助</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>declared</source>
        <translation>已声明</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Filter ops</source>
        <translation>筛选运算</translation>
    </message>
    <message>
        <source>io</source>
        <translation>输入输出</translation>
    </message>
    <message>
        <source>tensor array</source>
        <translation>张量数组</translation>
    </message>
    <message>
        <source>sparse</source>
        <translation>稀疏</translation>
    </message>
    <message>
        <source>lookup</source>
        <translation>查找表</translation>
    </message>
</context>
<context>
    <name>clab::ui::PlacementView</name>
    <message>
        <source>Filter by node, op or device</source>
        <translation>按节点、运算或设备筛选</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>运算</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Placed by</source>
        <translation>放置者</translation>
    </message>
    <message>
        <source>%1: %2 ops</source>
        <translation>%1：%2 个运算</translation>
    </message>
    <message>
        <source>No placement yet: it appears when a session places its graph.</source>
        <translation>还没有放置信息：会话放置计算图后显示在这里。</translation>
    </message>
</context>
<context>
    <name>clab::ui::PortForwards</name>
    <message>
        <source>cannot run kubectl: %1</source>
        <translation>无法运行 kubectl：%1</translation>
    </message>
    <message>
        <source>kubectl port-forward ended (status %1): %2</source>
        <translation>kubectl port-forward 已结束（状态 %1）：%2</translation>
    </message>
</context>
<context>
    <name>clab::ui::Project</name>
    <message>
        <source>%1: job name &apos;%2&apos; must start with a letter and hold only letters, digits and _</source>
        <translation>%1：作业名“%2”必须以字母开头，只能包含字母、数字和 _</translation>
    </message>
    <message>
        <source>%1: port %2 is out of range (1-65535)</source>
        <translation>%1：端口 %2 超出范围 (1-65535)</translation>
    </message>
    <message>
        <source>%1: the host is empty</source>
        <translation>%1：主机为空</translation>
    </message>
    <message>
        <source>%1: %2 is also the address of %3</source>
        <translation>%1：%2 也是 %3 的地址</translation>
    </message>
    <message>
        <source>the cluster has no ps job: variables need a parameter server</source>
        <translation>集群没有 ps 作业：变量需要参数服务器</translation>
    </message>
    <message>
        <source>the cluster has no worker job: nothing would run the program</source>
        <translation>集群没有 worker 作业：没有节点运行程序</translation>
    </message>
</context>
<context>
    <name>clab::ui::RecentProjects</name>
    <message>
        <source>(no recent projects)</source>
        <translation>（没有最近的项目）</translation>
    </message>
</context>
<context>
    <name>clab::ui::RemoteRun</name>
    <message>
        <source>a run on the hosts is already going: stop it first</source>
        <translation>主机上已有一次运行：请先停止它</translation>
    </message>
    <message>
        <source>cannot start %1: %2</source>
        <translation>无法启动 %1：%2</translation>
    </message>
    <message>
        <source>cannot write a copy of the project</source>
        <translation>无法写出项目的副本</translation>
    </message>
    <message>
        <source>clab launch ended with status %1</source>
        <translation>clab launch 以状态 %1 结束</translation>
    </message>
    <message>
        <source>the launch method is %1: choose ssh or slurm for a run on hosts</source>
        <translation>启动方式是 %1：在主机上运行请选择 ssh 或 slurm</translation>
    </message>
</context>
<context>
    <name>clab::ui::RunMonitor</name>
    <message numerus="yes">
        <source>%n event(s) of this task were lost: it sent them faster than they could be shown, and its server keeps only its latest events for a watcher that falls behind.</source>
        <translation>
            <numerusform>此任务的 %n 个事件丢失了：它发送事件的速度超过了显示的速度，而它的服务器只为落后的观察者保留最新的事件。</numerusform>
        </translation>
    </message>
    <message>
        <source>cannot watch this task: %1</source>
        <translation>无法观察这个任务：%1</translation>
    </message>
</context>
<context>
    <name>clab::ui::RunSettingsView</name>
    <message>
        <source>StopAtStepHook(last_step=...): the workers stop when the global step reaches it</source>
        <translation>StopAtStepHook(last_step=...)：全局步到达该值时工作节点停止</translation>
    </message>
    <message>
        <source>exactly the tutorial&apos;s graph</source>
        <translation>与教程的计算图完全一致</translation>
    </message>
    <message>
        <source>Nothing increments the global step, as in the tutorial: the run never reaches the last step
and only the time limit ends it (10 s unless set)</source>
        <translation>与教程一样，没有运算递增全局步：运行永远到不了最后一步，
只能由时间限制结束（未设定时为 10 秒）</translation>
    </message>
    <message>
        <source>synchronous replicas</source>
        <translation>同步副本</translation>
    </message>
    <message>
        <source>SyncReplicasOptimizer: each global step applies the mean gradient of every worker;
unchecked, every worker updates the ps on its own (asynchronously). Training programs only.</source>
        <translation>SyncReplicasOptimizer：每个全局步应用所有工作节点梯度的平均值；
不勾选时，每个工作节点各自（异步）更新 ps。仅适用于训练程序。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Stop the workers after this long (0: no limit)</source>
        <translation>运行这么久后停止工作节点（0：不限）</translation>
    </message>
    <message>
        <source>no checkpoints</source>
        <translation>不保存检查点</translation>
    </message>
    <message>
        <source>Where the chief writes model.ckpt-N files and event files; a restarted chief restores from here</source>
        <translation>chief 写入 model.ckpt-N 文件和事件文件的位置；重启后的 chief 从这里恢复</translation>
    </message>
    <message>
        <source>not by steps</source>
        <translation>不按步数</translation>
    </message>
    <message>
        <source>every </source>
        <translation>每 </translation>
    </message>
    <message>
        <source> steps</source>
        <translation> 步</translation>
    </message>
    <message>
        <source>--save_checkpoint_steps: the chief checkpoints every N global steps (when set, it wins over seconds)</source>
        <translation>--save_checkpoint_steps：chief 每隔 N 个全局步保存一次检查点（设定后优先于秒数）</translation>
    </message>
    <message>
        <source>every 600 s (default)</source>
        <translation>每 600 秒（默认）</translation>
    </message>
    <message>
        <source>--save_checkpoint_secs: the chief checkpoints every S seconds (0: TensorFlow&apos;s default of 600 s)</source>
        <translation>--save_checkpoint_secs：chief 每隔 S 秒保存一次检查点（0：TensorFlow 默认的 600 秒）</translation>
    </message>
    <message>
        <source>Last step</source>
        <translation>最后一步</translation>
    </message>
    <message>
        <source>Faithful</source>
        <translation>忠实模式</translation>
    </message>
    <message>
        <source>Updates</source>
        <translation>更新方式</translation>
    </message>
    <message>
        <source>Time limit</source>
        <translation>时间限制</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>Checkpoint steps</source>
        <translation>检查点步数间隔</translation>
    </message>
    <message>
        <source>Checkpoint time</source>
        <translation>检查点时间间隔</translation>
    </message>
</context>
<context>
    <name>clab::ui::ScalarChart</name>
    <message>
        <source>global step</source>
        <translation>全局步</translation>
    </message>
    <message>
        <source>%1 (raw)</source>
        <translation>%1（原始值）</translation>
    </message>
</context>
<context>
    <name>clab::ui::ScalarsView</name>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Accuracy (dots: held-out)</source>
        <translation>准确率（圆点：留出集）</translation>
    </message>
    <message>
        <source>accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <source>Exponential moving average of the curves, as TensorBoard smooths them: 0 shows the raw values</source>
        <translation>曲线的指数移动平均，与 TensorBoard 的平滑方式相同：0 表示显示原始值</translation>
    </message>
    <message>
        <source>Log scale (loss)</source>
        <translation>对数坐标（损失）</translation>
    </message>
    <message>
        <source>Each Start of training is a run; untick one to hide its curves</source>
        <translation>每次开始训练即为一次运行；取消勾选可隐藏其曲线</translation>
    </message>
    <message>
        <source>Clear earlier runs</source>
        <translation>清除之前的运行</translation>
    </message>
    <message>
        <source>Smoothing</source>
        <translation>平滑</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>%1, started at %2</source>
        <translation>%1，开始于 %2</translation>
    </message>
    <message>
        <source>held-out, run %1</source>
        <translation>留出集，运行 %1</translation>
    </message>
</context>
<context>
    <name>clab::ui::SecurityActions</name>
    <message>
        <source>Folder for the cluster&apos;s certificates</source>
        <translation>存放集群证书的文件夹</translation>
    </message>
    <message>
        <source>Cannot protect the cluster</source>
        <translation>无法保护集群</translation>
    </message>
    <message>
        <source>&amp;Protect the cluster (TLS and token)...</source>
        <translation>保护集群（TLS 和令牌）(&amp;P)…</translation>
    </message>
    <message>
        <source>Make a cluster CA, a certificate per task and a token (as `clab cert`), and run the tasks with them</source>
        <translation>生成集群 CA、每个任务一张证书和一个令牌（同 `clab cert`），并用它们运行任务</translation>
    </message>
    <message>
        <source>Certificates and token written to %1</source>
        <translation>证书和令牌已写入 %1</translation>
    </message>
</context>
<context>
    <name>clab::ui::SimulatePanel</name>
    <message>
        <source>The curve goes 1, 2, 4, ... up to this many workers</source>
        <translation>曲线取 1、2、4……直到这么多个 worker</translation>
    </message>
    <message>
        <source>Synchronous replicas</source>
        <translation>同步副本</translation>
    </message>
    <message>
        <source>1.0 is one core of the machine the calibration ran on</source>
        <translation>1.0 表示做校准的那台机器上的一个核</translation>
    </message>
    <message>
        <source>Workers</source>
        <translation>工作节点数</translation>
    </message>
    <message>
        <source>Parameter servers</source>
        <translation>参数服务器数</translation>
    </message>
    <message>
        <source>Cores per host</source>
        <translation>每台主机的核数</translation>
    </message>
    <message>
        <source>Host speed</source>
        <translation>主机速度</translation>
    </message>
    <message>
        <source>Link bandwidth</source>
        <translation>链路带宽</translation>
    </message>
    <message>
        <source>Link latency</source>
        <translation>链路延迟</translation>
    </message>
    <message>
        <source>Uncalibrated: op costs from a FLOP-count model</source>
        <translation>未校准：算子开销来自浮点运算次数模型</translation>
    </message>
    <message>
        <source>Load calibration...</source>
        <translation>载入校准……</translation>
    </message>
    <message>
        <source>A file made by &apos;clab simulate --calibrate PROJECT -o FILE&apos; on this machine</source>
        <translation>在本机用 &apos;clab simulate --calibrate PROJECT -o FILE&apos; 生成的文件</translation>
    </message>
    <message>
        <source>Calibration</source>
        <translation>校准</translation>
    </message>
    <message>
        <source>Calibration (*.json)</source>
        <translation>校准文件 (*.json)</translation>
    </message>
    <message>
        <source>Calibrated by %1</source>
        <translation>按 %1 校准</translation>
    </message>
    <message>
        <source>steps/s, all workers</source>
        <translation>步/秒（所有 worker）</translation>
    </message>
    <message>
        <source>the chosen cluster</source>
        <translation>所选集群</translation>
    </message>
    <message>
        <source>Throughput against workers</source>
        <translation>吞吐量随 worker 数的变化</translation>
    </message>
    <message>
        <source>workers</source>
        <translation>worker 数</translation>
    </message>
    <message>
        <source>steps/s</source>
        <translation>步/秒</translation>
    </message>
    <message>
        <source>Simulating...</source>
        <translation>正在模拟……</translation>
    </message>
    <message>
        <source>The simulation failed: %1</source>
        <translation>模拟失败：%1</translation>
    </message>
    <message>
        <source>Busiest: %1</source>
        <translation>最忙的部分：%1</translation>
    </message>
    <message>
        <source>%1 workers, %2 ps: %3 steps/s in all, %4 per worker; a step of %5 ms is %6 compute, %7 transfer, %8 waiting.</source>
        <translation>%1 个 worker、%2 个 ps：共 %3 步/秒，每个 worker %4 步/秒；一步 %5 毫秒，其中计算 %6、传输 %7、等待 %8。</translation>
    </message>
    <message>
        <source>%1&apos;s NIC is %2 busy and carries %3 of the step&apos;s bytes: add a ps.</source>
        <translation>%1 的网卡忙碌 %2，承载一步中 %3 的字节：增加一个 ps。</translation>
    </message>
    <message>
        <source>%1&apos;s NIC is %2 busy and carries %3 of the step&apos;s bytes: add a ps or partition %4.</source>
        <translation>%1 的网卡忙碌 %2，承载一步中 %3 的字节：增加一个 ps，或者切分 %4。</translation>
    </message>
    <message>
        <source>%1&apos;s CPU is %2 busy serving the workers&apos; calls: add a ps or give it more or faster cores.</source>
        <translation>%1 的 CPU 为处理 worker 的调用忙碌 %2：增加一个 ps，或者给它更多、更快的核。</translation>
    </message>
    <message>
        <source>The cores %1 share are %2 busy: more cores or fewer tasks per host.</source>
        <translation>%1 共用的核忙碌 %2：增加核数，或者每台主机少放几个任务。</translation>
    </message>
    <message>
        <source>The workers&apos; NICs are %1 busy moving weights and gradients: faster worker links.</source>
        <translation>worker 的网卡为传送权重和梯度忙碌 %1：需要更快的 worker 链路。</translation>
    </message>
    <message>
        <source>%1 is %2 busy: every step&apos;s bytes cross it; a faster switch or uplink.</source>
        <translation>%1 忙碌 %2：每一步的字节都要经过它；需要更快的交换机或上行链路。</translation>
    </message>
    <message>
        <source>Synchronous steps wait for the slowest worker: %1&apos;s compute takes %2x the others&apos;.</source>
        <translation>同步训练的每一步都要等最慢的 worker：%1 的计算时间是其他 worker 的 %2 倍。</translation>
    </message>
    <message>
        <source>The workers&apos; own compute is %1 of a step: more workers add throughput, faster ones shorten the step.</source>
        <translation>worker 自身的计算占一步的 %1：更多 worker 能提高吞吐量，更快的 worker 能缩短每一步。</translation>
    </message>
    <message>
        <source>No part of the cluster is busy: a step waits on its %1 calls&apos; round trips; fewer calls or shorter latency help.</source>
        <translation>集群中没有哪一部分很忙：一步在等待其 %1 次调用的往返；减少调用或缩短延迟会有帮助。</translation>
    </message>
    <message>
        <source>Edit the simulated platform</source>
        <translation>编辑模拟的平台</translation>
    </message>
</context>
<context>
    <name>clab::ui::TaskItem</name>
    <message>
        <source>Devices:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <source>%1 / task %2</source>
        <translation>%1 / 任务 %2</translation>
    </message>
    <message>
        <source>not running</source>
        <translation>未运行</translation>
    </message>
</context>
<context>
    <name>clab::ui::TaskPropertiesView</name>
    <message>
        <source>The host the task runs on: a name or an address. Loopback addresses listen on loopback only.</source>
        <translation>任务运行的主机：主机名或地址。回环地址只在回环接口上监听。</translation>
    </message>
    <message>
        <source>The task&apos;s gRPC port (1-65535)</source>
        <translation>任务的 gRPC 端口 (1-65535)</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>Select a task on the canvas to edit it.</source>
        <translation>在画布上选中一个任务即可编辑。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;job %2, task %3</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;作业 %2，任务 %3</translation>
    </message>
    <message>
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>known once the task runs</source>
        <translation>任务运行后可知</translation>
    </message>
</context>
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
        <source>Walk through one distributed step of this graph: choose what the step fetches, then press &quot;Walk through one step&quot;.</source>
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
        <source>The client calls &lt;i&gt;session.run&lt;/i&gt; and asks for %1. The master, which lives in the server of the client&apos;s own task, first keeps only the nodes those results need.</source>
        <translation>客户端调用 &lt;i&gt;session.run&lt;/i&gt;，请求 %1。master 位于客户端所在任务的 server 中，它首先只保留得到这些结果所需要的节点。</translation>
    </message>
    <message>
        <source>%1 of the graph&apos;s %2 nodes are needed. The %3 greyed out are not run in this step, for example the initialiser, which the chief ran once before the first step.</source>
        <translation>图中 %2 个节点里需要 %1 个。灰色的 %3 个节点在这一步中不会运行，例如初始化操作——chief 在第一步之前已经运行过一次。</translation>
    </message>
    <message>
        <source>The placer gives every kept node exactly one device. A node that asked for a device gets it; variables were put on the parameter servers (ps) by &lt;i&gt;replica_device_setter&lt;/i&gt;; everything else runs on the worker that owns the session. Nodes now have the colour of their task.</source>
        <translation>放置器（placer）为每个保留的节点指定唯一的设备。指定了设备的节点就放在那里；变量由 &lt;i&gt;replica_device_setter&lt;/i&gt; 放到参数服务器（ps）上；其余的都在拥有这个 session 的 worker 上运行。现在节点的颜色就是它所在任务的颜色。</translation>
    </message>
    <message numerus="yes">
        <source>%1: %n node(s)</source>
        <translation>
            <numerusform>%1：%n 个节点</numerusform>
        </translation>
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
        <translation>
            <numerusform>每一步有 %n 个张量跨越任务，共 %1：</numerusform>
        </translation>
    </message>
    <message>
        <source>ClusterLab packs the tensors one device sends to another task into a single message (&lt;b&gt;_PackTensors&lt;/b&gt;, unpacked on arrival), so a step makes fewer calls.</source>
        <translation>ClusterLab 把一个设备发往另一个任务的张量打包成一条消息（&lt;b&gt;_PackTensors&lt;/b&gt;，到达后再拆开），这样每一步的调用更少。</translation>
    </message>
    <message>
        <source>The master sends each task its partition once (&lt;b&gt;RegisterGraph&lt;/b&gt;). The task builds a kernel for every node and returns a handle. Later steps with the same fetches only say &quot;run handle H as step S&quot; (&lt;b&gt;RunGraph&lt;/b&gt;): the graph is not sent again.</source>
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
        <source>is a variable: its value lives in this task&apos;s memory between steps.</source>
        <translation>是一个变量：它的值在步骤之间保存在这个任务的内存中。</translation>
    </message>
    <message>
        <source>reads the variable&apos;s current value.</source>
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
    <message>
        <source>%1 both sends to %2 and waits for it. ClusterLab registers such a partition as two graphs: the first, which waits for nothing, returns what it sends in its RunGraph reply; the second gets the tensors it waits for in its RunGraph request. A step then costs two calls to that task and no RecvTensor.</source>
        <translation>%1 既向 %2 发送数据，又等待来自它的数据。ClusterLab 把这样的分区注册为两个图：第一个不等待任何数据，把要发送的张量放在 RunGraph 的回复中返回；第二个在 RunGraph 的请求中得到它等待的张量。这样每一步只需要对该任务调用两次，而不需要 RecvTensor。</translation>
    </message>
    <message>
        <source>(%1) on %2 %3</source>
        <translation>（%1）位于 %2 %3</translation>
    </message>
    <message>
        <source>from %1 to %2</source>
        <translation>从 %1 到 %2</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; (%2, %3) on %4 %5</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;（%2，%3）位于 %4 %5</translation>
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
<context>
    <name>clab::ui::WelcomeView</name>
    <message>
        <source>&lt;h2&gt;ClusterLab Studio&lt;/h2&gt;&lt;p&gt;Design a cluster of parameter servers and workers, run it on this machine (every task its own process, talking gRPC) or attach to one running on real hosts, and watch training live: each task&apos;s state, the global step and its rate, the loss, where every op runs, the bytes on every link, checkpoints. Right-click a task to kill or restart it and watch the workers recover.&lt;/p&gt;&lt;p&gt;Start from an example, then press &lt;b&gt;F5&lt;/b&gt; to run it.&lt;/p&gt;</source>
        <translation>&lt;h2&gt;ClusterLab Studio&lt;/h2&gt;&lt;p&gt;设计由参数服务器和工作节点组成的集群，在本机运行（每个任务一个进程，通过 gRPC 通信），或连接到在真实主机上运行的集群，实时观察训练：每个任务的状态、全局步及其速率、损失、每个运算在哪里运行、每条链路上的字节数、检查点。右键单击任务可强制结束或重启它，观察工作节点如何恢复。&lt;/p&gt;&lt;p&gt;从一个示例开始，然后按 &lt;b&gt;F5&lt;/b&gt; 运行。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>The seed tutorial</source>
        <translation>种子教程</translation>
    </message>
    <message>
        <source>x . w on a ps and a worker, 200 steps: the placement log and [[20]]</source>
        <translation>在一个 ps 和一个 worker 上计算 x · w，200 步：放置日志和 [[20]]</translation>
    </message>
    <message>
        <source>The seed on two workers</source>
        <translation>两个 worker 上的种子示例</translation>
    </message>
    <message>
        <source>20,000 steps on a ps and two workers sharing w</source>
        <translation>一个 ps 和两个共享 w 的 worker，20,000 步</translation>
    </message>
    <message>
        <source>Real training: handwritten digits</source>
        <translation>真实训练：手写数字</translation>
    </message>
    <message>
        <source>a 64-128-10 MLP trained by two workers against a ps; the loss falls</source>
        <translation>两个 worker 配合一个 ps 训练 64-128-10 的 MLP；损失逐步下降</translation>
    </message>
    <message>
        <source>&lt;b&gt;Recent projects&lt;/b&gt; (double-click to open)</source>
        <translation>&lt;b&gt;最近的项目&lt;/b&gt;（双击打开）</translation>
    </message>
    <message>
        <source>(none yet: File &gt; Save As writes a .clab project)</source>
        <translation>（还没有：文件 &gt; 另存为 会写出 .clab 项目）</translation>
    </message>
</context>
</TS>
