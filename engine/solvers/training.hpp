// Solver "training": one 3D-parallel (TP x PP x DP, plus EP for a mixture of experts) training
// configuration of a transformer (dense, MoE, MHA/GQA or multi-head latent attention) on
// `gpus` identical accelerators in nodes of `gpus_per_node` (default 8, the DGX/HGX H100 layout; 72
// for a GB200 NVL72 rack: NVLink inside a node, one NIC per GPU across nodes). Defaults: mixed-precision
// (bf16 compute, fp32 master weights) AdamW, sequence parallelism on, no context parallelism, full
// training.
//
// Training configurations (parameters precision, optimizer, cp, sequence_parallel, finetune, lora_rank):
//  - precision: the compute time uses the hardware's dense peak of that precision (studies/catalog/
//    hardware.yaml); a hardware without it is infeasible (bf16 on hardware without bf16 runs at the fp16
//    peak, as before). fp32 and tf32 keep 4-byte weights, gradients and activations and no master copy;
//    bf16 and fp16 2-byte ones plus the fp32 master. fp8 follows NVIDIA Transformer Engine's default
//    recipe (engine/parallelism.hpp; formats of Micikevicius et al., "FP8 Formats for Deep Learning",
//    arXiv 2209.05433, 2022): the linear layers' GEMMs run at the fp8 peak times the hardware's
//    fp8_gemm_relative_efficiency (fp8 GEMMs reach less of their doubled peak than bf16 ones reach of
//    theirs: engine/hardware.hpp), attention (scores,
//    softmax, context) and the LM head (no TE module in Megatron-Core or llm-foundry) at the bf16
//    peak; weights stay bf16 with an fp32 master copy, activations and communication bf16 (the fp8
//    copies TE holds for backward are not counted in memory; the casts' traffic is, in the step: the
//    GEMM inputs and output gradients, and the GPU's linear weights on every forward pass, TE's
//    default without is_first_microbatch; fp8_weight_cast: cached casts them once per step, as
//    Megatron-Core's TE wrappers do: megatron/core/extensions/transformer_engine.py passes
//    is_first_microbatch to TE and clears it after the first call, unless
//    disable_parameter_transpose_cache). MFU/HFU and the TFLOP/s metrics are against the training precision's
//    peak, for fp8 against the bf16 peak (a stated choice, so that fp8 and bf16 runs compare on one
//    scale; the fp8 speed-up then shows as MFU above eta).
//  - optimizer: state bytes per parameter in engine/training_memory.hpp (AdamW as Adam: decoupled weight
//    decay keeps the same two moments, Loshchilov and Hutter, "Decoupled Weight Decay Regularization",
//    ICLR 2019); ZeRO shards them as before; the checkpoint holds weights, master and states.
//  - cp: context parallelism (engine/parallelism.hpp; Liu et al. 2023, Ring Attention; NVIDIA
//    Megatron-Core context parallel): gpus = tp x pp x cp x dp; each rank holds s / cp tokens, so
//    activations, TP/PP messages and MoE dispatch shrink by cp; the K/V ring runs on NVLink while
//    tp x cp <= gpus_per_node (between TP blocks on a torus node, below), else on the NIC (alpha
//    fabric_latency), and tp x cp must nest with the
//    node; seq_len must divide into 2 x cp chunks (Megatron-Core's load-balanced causal split). The
//    gradient all-reduce and ZeRO sharding run over the dp x cp ranks holding the same weights.
//    cp_comm chooses how the K/V blocks move, by Transformer Engine's cp_comm_type names
//    (transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py): p2p, the
//    ring above (each rank sends to the next and receives from the previous, one direction of the
//    ring; TE's and Megatron-Core's default), or all_gather (Llama 3, arXiv:2407.21783 section
//    3.3.2; TE's AttnFuncWithCPAndKVAllGather, "KV all-gather between CP ranks is exposed"): the cp
//    chunks all-gathered (forward, again backward) and the KV gradients
//    reduce-scattered, each a ring all-gather of the cp chunks not hidden behind attention; on a
//    torus node the cp ranks' strided group (torus_strided_group) all-gathers on its bidirectional
//    rings, both directions of each link busy, where the p2p ring sends one way. PyTorch's all-gather
//    pass-KV (torchtitan's default context_parallel_rotate_method, allgather) overlaps the gather
//    with the local chunk's attention; that overlap is not modelled.
//  - sequence_parallel: off keeps the Korthikanti et al. 2022 Table 2 "tensor parallel" activations
//    (LayerNorm, dropout and their inputs replicated over TP); the TP traffic is the same either way
//    (an all-reduce, or a reduce-scatter + all-gather of equal volume: their section 4.2.2). Expert
//    parallelism with tp > 1 needs it on, as Megatron-Core requires (megatron/core/transformer/
//    transformer_config.py: "When using expert parallelism and tensor parallelism, sequence
//    parallelism must be used"; moe/README.md), so the MoE dispatch keeps its per-TP-rank share.
//  - finetune lora / qlora (Hu et al. 2021, LoRA; Dettmers et al. 2023, QLoRA): adapters of rank
//    lora_rank on every linear layer of the blocks (engine/serving.hpp adapter_in_out_elements); the
//    base frozen in bf16 (lora) or 4-bit NF4 (qlora, dequantised to the training precision for its
//    GEMMs, whose cost is not counted), with no gradients or optimizer states; FLOPs 4 N + 6 A +
//    attention per token (engine/parallelism.hpp); the DP all-reduce carries the adapters' gradients
//    only, and at ZeRO-3 a reduce-scatter of them plus two all-gathers of every weight (the frozen
//    base at its storage bytes); the checkpoint the adapters' state only. Adapter activations are not added.
//  - Mamba layers: a hybrid of attention and Mamba layers (Jamba, engine/model_builders_hybrid.cpp) or
//    an attention-free Mamba stack (architecture mamba, engine/model_builders_sequence.cpp;
//    engine/serving.hpp reads their shape). Every block counts as a layer for the pipeline split (a
//    Nemotron-H MLP layer, engine/model_builders_hybrid.cpp nemotron_h, joins the mixer before it:
//    Nemotron-H-8B's 52 blocks are 28 units, 24 of them with an MLP). A
//    Mamba layer's activations are what state-spaces/mamba's MambaInnerFn saves for backward, per
//    recompute level (engine/training_memory.hpp mamba_activation_bytes_per_layer). With pp > 1 each
//    stage of a hybrid holds its own layers: the layers in order (engine/serving.hpp layer_kinds;
//    Jamba's attention at i % attention_period = attention_offset, MoE at i % expert_period =
//    expert_offset) split into contiguous chunks as for a dense model (chunk c on stage c % pp under
//    interleaving), and each stage counts its attention, Mamba and MoE layers. Its weights are its
//    layers' mixers and feed-forwards (a MoE layer all its experts, divided by ep) plus 1 / pp of the
//    rest (embeddings, LM head, norms, routers), its activations its own attention and Mamba layers;
//    the largest stage sets the memory per GPU. Its time takes the GEMMs at its layers' active weights,
//    attention at its attention layers, the scans (FLOPs and bytes) at its Mamba layers, the other
//    memory-bound work and the TP all-reduces at its layer count (the narrow one per Mamba-1 layer),
//    the EP all-to-alls at its MoE layers; the slowest stage sets the step. Jamba-v0.1 (32 layers) at
//    pp 4 gives every stage one 8-layer block (1 attention, 4 MoE); at pp 8 stage 1 holds layers 4-7
//    (attention and 2 MoE) and stage 0 layers 0-3 (4 Mamba, 2 MoE). Each stage's gradient all-reduce
//    (ZeRO-3's gathers too) carries its own weights' gradients, and its optimizer update (on the
//    accelerator or, offloaded, on the host) and its offloaded layers' traffic are its own weights'
//    and states' (LoRA's adapters are 1 / pp of them on every stage); every stage keeps the first
//    stage's min(m, pp) micro-batches in flight, as for a dense model. Under TP (tp must divide the D = expand x d_model channels) a
//    Mamba-1 mixer all-reduces twice forward, d wide after out_proj and dt_rank + 2 d_state wide after
//    x_proj, and a block's feed-forward once more (a Mamba stack has none), each with its conjugate
//    backward (engine/parallelism.hpp). The attention FLOPs are the graph's (attention_width is the
//    mean over all layers; 0 for a Mamba stack). The scan is priced as memory-bound work (its inputs
//    u, Delta, B, C and its output through memory, 2.5 passes like the other elementwise ops, 3.5
//    with full recomputation), not by its 9 D d_state FLOPs per token (engine/operators.hpp): the
//    Mamba paper's section 3.3.2 has the scan bound by memory bandwidth ("most operations (except
//    matrix multiplication) are bounded by memory bandwidth"), with the state kept in SRAM and
//    recomputed backward; MFU and HFU count 6 N per token and attention, as PaLM's appendix B
//    does, so the scan's FLOPs are in neither. Context parallelism is refused: ring attention
//    splits attention only, and a Mamba layer's scan runs over the whole sequence.
//
// Physics (each file cites its sources):
//  - memory per GPU: engine/training_memory.hpp (ZeRO 0-3, Korthikanti et al. 2022 activations with
//    none/selective/full recomputation divided by TP; with `attention: fused`, the default, the s x s
//    scores are never stored, as with FlashAttention; the busiest stage's layers x min(m, p) micro-batches in flight
//    under 1F1B, plus 2 b s h x 2 B of pipeline send/receive buffers when pp > 1). Does not fit ->
//    infeasible (the memory metrics are still written).
//  - step: engine/parallelism.hpp. Each GPU computes 1 / (tp x pp) of its replica's FLOPs (PaLM
//    appendix B hardware FLOPs: recomputation included): the GEMMs at eta x the precision's peak, the
//    attention core at attention_eta (a causal mask halves what a fused kernel computes: FlashAttention
//    skips the masked blocks, Dao 2023, "FlashAttention-2", arXiv:2307.08691, section 3.1), and the
//    memory-bound work at memory_efficiency x the memory bandwidth: every op of the graph that is
//    neither a matmul nor attention (norms, activations, residual adds, rotary) read and written
//    forward, 1.5 times that backward (its input and the output's gradient read, the input's gradient
//    written), again forward under full recomputation; the loss's read of the logits and write of
//    their gradient; for fp8 Transformer Engine's casts (engine/parallelism.hpp); and once per step the
//    optimizer update (states read and written, gradients read, weights written). memory_traffic
//    scales those bytes for frameworks that move more than the fused minimum. Without sequence
//    parallelism every TP rank repeats the norms and residual adds (Korthikanti et al. 2022 section
//    4.2.2). The 1F1B bubble stretches compute by (p-1)/m; TP: 4 ring all-reduces of b s h x 2 B
//    per layer per micro-batch (6 with full recomputation) on the one-way NVLink rate, alpha 0.5 us
//    (mlsysim's NVLink latency), or, for a TP group larger than a node (tp a multiple of
//    gpus_per_node) or spread over nodes by rank_order, on the NIC, whose hops bound the ring;
//    PP: 2 point-to-point transfers of b s h x 2 B / tp per micro-batch on the NIC, alpha
//    `fabric_latency` (default 5 us, mlsysim's IB NDR latency), or on NVLink when the whole job fits
//    one node (pp is the outermost dimension of Megatron-Core's rank order, so stage neighbours
//    share a node only then: 8 GPUs at pp 8 on a DGX, 64 at tp 8 x pp 8 in an NVL72 rack); DP: hierarchical all-reduce of the
//    bf16 gradient shard, the gpus_per_node / tp DP peers inside a node on NVLink and the rest across
//    nodes on the NIC (mlsysim prices DP <= 8 on NVLink even when TP fills the node: its section 6.6);
//    ZeRO 3 adds a weight all-gather (1.5x the volume, Rajbhandari et al. 2020 section 7); `overlap`
//    hides that fraction of the DP time behind backward compute, `tp_overlap` that fraction of the
//    TP all-reduces behind the GEMMs (Megatron-Core's tensor-parallel communication overlap,
//    Wang et al., "Overlap Communication with Dependent Computation via Decomposition in Large Deep
//    Learning Models", ASPLOS 2023: the collective is split into chunks that run under the GEMMs
//    consuming or producing them); PP communication is not overlapped. Every transfer across nodes runs at fabric_bandwidth / `oversubscription` (a
//    fat-tree oversubscribed k:1 gives each NIC 1/k of its rate under all-to-all load). A tp that does
//    not nest with the node (neither divides the other) is infeasible: TP groups tile nodes.
//  - stragglers: a synchronous step waits for its slowest rank; `straggler_slowdown` (>= 1) divides
//    every GPU's achieved compute rate (Dean and Barroso 2013, The Tail at Scale, CACM 56(2)).
//  - mixture of experts: compute, MFU/HFU and the 6PD check use the ACTIVE parameters (Mixtral 8x7B:
//    12.9 B of 46.7 B; DeepSeek-V3: 37.5 B of 671 B) while memory, the gradient all-reduce and the
//    checkpoint hold all of them. Expert parallelism `ep` (engine/parallelism.hpp, Megatron-Core MoE):
//    ep must divide dp (EP ranks are data-parallel ranks: NVIDIA Megatron-LM
//    megatron/core/transformer/moe/README.md, parallel_state.py) and the number of routed experts; a
//    dense model needs ep = 1. Expert weights, gradients and optimizer states are divided by ep on top
//    of TP x PP, their ZeRO sharding and gradient all-reduce run over the dp / ep expert-DP ranks.
//    Dispatch and combine all-to-alls (engine/collectives.hpp, pairwise exchange) of b s k h x 2 B / tp
//    per GPU (its sequence-parallel share of the tokens, k copies each): on NVLink while
//    tp x ep <= gpus_per_node (Megatron-Core places EP ranks next to each other after TP), else on the NIC.
//    The routed experts' tensor-parallel degree `etp` (torchtitan's ParallelDims, pytorch/torchtitan
//    torchtitan/distributed/parallel_dims.py: "Currently we only support ETP=TP or ETP=1"): tp, the
//    layout above (experts split over the TP group as the dense layers are; EP ranks are tp apart), or
//    1: whole experts, and the EP group "would borrow all cp and tp and some dp_shard degree" (there;
//    dsx keeps cp in the expert-DP group, as Megatron-Core's expert grid does), so ep must be a multiple
//    of tp with ep / tp dividing dp, the EP ranks are consecutive (Megatron-Core's expert grid with
//    expert_tensor_parallel_size 1 puts them innermost too), the expert weights split over pp x ep ranks
//    and their gradients reduce over the dp x cp x tp / ep expert-DP ranks. Each GPU still dispatches its
//    1 / tp share of the tokens (torchtitan's ReordererSequenceParallel splits the routed tokens over the
//    TP ranks "so that the reorderer, the all-to-all comms, and routed experts computation are effectively
//    running Sequence Parallel", torchtitan/models/llama4/infra/parallelize.py), and the TP collectives
//    around the MoE block stay those of a dense feed-forward (torchtitan all-gathers its input over TP and
//    reduce-scatters its output either way). Under etp = tp with ep > 1 each MoE layer all-gathers the
//    tokens a rank received over the expert-TP group before the experts and reduce-scatters the
//    experts' outputs after, tp x the dispatch bytes gathered, forward, backward (their conjugates) and
//    recomputed (Megatron-Core's alltoall token dispatcher, megatron/core/transformer/moe/
//    token_dispatcher.py: "permute->A2A(EP)->AG(TP)->sort_chunk", "sort_chunk->RS(TP)->A2A(EP)->
//    unpermute"), on the TP group's links (NVLink, torus, NIC or data-centre network, as the TP
//    all-reduce), in ep_comm_s; they take the place of the layer's feed-forward TP all-reduce, which
//    Megatron-Core's MoE layer does not run. `tp_overlap` does not hide them, nor does any of
//    Megatron-Core's overlaps: --tp-comm-overlap splits only the TE linear layers' collectives
//    (megatron/core/extensions/transformer_engine.py: user buffers for "qkv", "proj", "fc1", "fc2";
//    TEGroupedLinear, the experts, is made "agnostic of model parallel" because "The comms between TP
//    and EP group is explicitly handled by MoE token dispatcher"); --overlap-moe-expert-parallel-comm
//    (Combined 1F1B) hides the dispatch and combine all-to-alls on its communication stream, while the
//    gather and the reduce-scatter run on the compute stream inside the experts' node
//    (megatron/core/models/gpt/fine_grained_callables.py submodule_moe_forward: "post dispatch->
//    experts->combine preprocess"; models/common/model_chunk_schedule_plan.py); and
//    --moe-shared-expert-overlap runs the shared experts beside the all-to-alls only
//    (token_dispatcher.py). DeepSeek-V3's DualPipe (arXiv:2412.19437, section 3.2.1) trains without
//    tensor parallelism and says nothing of them. etp 1 gathers nothing (each rank
//    dispatches its own share) and keeps the feed-forward's all-reduce, as torchtitan does; so does
//    ep 1 (Megatron-Core's allgather dispatcher gathers the hidden states over TP, as a dense
//    feed-forward does). Not modelled: the larger expert GEMMs' efficiency under etp 1.
//    `ep_all_to_all` (when the EP group spans nodes or pods): flat prices the dispatch as one pairwise
//    exchange at the slowest tier's bandwidth and latency, as before; hierarchical as Tutel's 2DH
//    all-to-all (engine/collectives.hpp hierarchical_all_to_all_s): an all-to-all of the whole buffer
//    among the EP ranks of a node on NVLink (on a torus node, their strided group), then among the nodes
//    of a pod on the NIC, then among the pods on the data-centre network, each stage paying its own alpha
//    per step. The group must hold the same number of its ranks in every node and pod it spans, else
//    infeasible. `max_nodes_per_token` M > 0 is DeepSeek-V3's node-limited routing (arXiv:2412.19437
//    section 3.2.2: "at most 4 nodes", each token sent over InfiniBand once to every node it reaches
//    and forwarded there on NVLink): the stages across nodes carry min(k, M, nodes of the group) / k of
//    the buffer, the node's stage all of it (engine/collectives.hpp TokenRouting); 0, the default, sends
//    every copy across; the flat exchange ignores it.
//  - attention FLOPs use the model's attention width (H (dqk + dv) / 2 for MLA), and activation memory
//    Korthikanti's dense formula with h = d_model (MLA's and the routed tokens' activations differ).
//  - hardware_tflops_per_gpu = HFU x peak is the convention of Megatron-LM's published per-GPU
//    TFLOP/s (Narayanan et al. SC'21, eq. 3 counts the recomputed forward); tflops_per_gpu is MFU x peak.
//  - sequence length: the model entry's (the graph is built for it; llama3_70b: 2,048).
//  - tokens per step = DP x m x b x s: each DP replica counts once (mlsysim counts TP x PP times: 6.2).
//  - MFU/HFU (PaLM appendix B), time to train = D / tokens_per_s, and the 6 P D / (N X MFU) check.
//  - torus nodes (torus_x, torus_y, torus_z, which a node's topology sets; engine/torus.hpp): the
//    in-node TP all-reduce runs on the TP group's block of the torus, the in-node MoE all-to-all on
//    the EP ranks' strided group (bound by its bisection), and the in-node parts of the DP and
//    expert-DP all-reduces on the strided torus of the DP peers, each chip's accelerator link shared
//    by its 2 x dimensions neighbour links; a torus whose chips are not gpus_per_node is infeasible.
//    Pipeline stages in the node are neighbouring blocks of n / pp chips (tp x cp with pp inside
//    dp), and a context-parallel ring's ranks neighbouring TP blocks: each transfer crosses the face
//    between two blocks, chips(block) / e_d links for the block's chips ("How to Scale Your Model",
//    parts 2 and 5: nearest-neighbour ICI links, stages one hop apart; engine/torus.hpp
//    torus_block_hop_s), so a stage of a 2 x 16 block of a 16 x 16 pod gets half a link per chip.
//  - failures (engine/reliability.hpp): fleet MTBF of gpus / gpus_per_node nodes from mlsysim's
//    component MTTFs (gpus_per_node GPUs and NICs, 2 PSUs per node); a checkpoint of 14 B per
//    parameter (bf16 weights + fp32 master, momentum, variance; checkpoint_bytes) written at
//    `checkpoint_bandwidth` (default mlsysim's 100 GB/s; checkpoint_s);
//    Daly's interval; restart 300 s (mlsysim ReliabilityModel); goodput with rework; time_with_failures
//    = time_to_train / goodput. Energy, carbon and cost are of the failure-free time_to_train.
//  - power per GPU from its busy share (compute_s / step_s) on the idle + dynamic model
//    (engine/carbon.hpp); energy x PUE; carbon at the grid intensity; on-site water = IT energy (kWh)
//    x WUE (The Green Grid, White Paper 35, 2011: WUE is site water over IT energy, not facility
//    energy; the regions of studies/catalog/regions.yaml give mlsysim's WUE); cost per GPU-hour from the
//    catalog price over 3 years plus 5 %/year maintenance (mlsysim EconomicsModel defaults) plus
//    electricity (engine/economics.hpp); hardware without a price leaves the cost metrics NaN (the
//    point stays feasible, as hardware without a TDP leaves energy NaN).
//  - offload: optimizer (ZeRO-Offload; Ren et al., "ZeRO-Offload: Democratizing Billion-Scale Model
//    Training", USENIX ATC 2021, arXiv:2101.06840, section 4): the gradient partition, fp32 master and
//    optimizer states of the GPU's ZeRO shard live in host memory (host_memory_per_gpu_bytes), so the
//    accelerator holds only the weights, the activations and the buffers. Per step the gradient shard
//    crosses the host link (the one-way host_link of the catalog) during the backward pass of the last
//    micro-batch, the host's update streams the states and gradients at host_memory_bandwidth (read
//    and write of the states, the gradients read, the weights written: a memory-bound Adam, whose
//    few FLOPs per parameter a vectorised CPU Adam hides), and the updated weights come back over the
//    host link before the next forward; this replaces the device's optimizer update in optimizer_s.
//    The paper's one-step delayed parameter update (which hides the host side behind the next step)
//    is not modelled.
//  - offload: weights, activations and their combinations with optimizer (optimizer_weights,
//    optimizer_activations, weights_activations, all): the weights and the stored activations (the
//    layer inputs under full recomputation) live in host memory and stream over the host link a layer
//    at a time, as Calculon models it (engine/offload.hpp; Isaev et al., SC'23; calculon-ai/calculon
//    calculon/llm/llm.py). The accelerator keeps two layers' weights and two layers' activations of one
//    micro-batch; host_memory_per_gpu_bytes adds what moved.
//    Per layer per micro-batch, forward max(weights, activations) and backward weights + activations
//    cross the link, each hidden behind that layer's compute-bound time and exposed TP all-reduces;
//    the remainder, every layer and micro-batch, is offload_exposed_s (the bubble stretches it like
//    compute, in bubble_s). With the optimizer on the accelerator the updated trainable weights go
//    back to host memory once per step over the link, unhidden (in offload_exposed_s); with the
//    optimizer offloaded too the host's update writes them where they live, and the copy back to the
//    accelerator leaves optimizer_s. Fewer than 3 layers per pipeline stage: infeasible (Calculon's
//    rule).
//  - host memory capacity (host_memory_capacity, the host memory one GPU may fill: a host's memory
//    over the GPUs that share it, e.g. a DGX H100's 2 TB over 8 GPUs, NVIDIA DGX H100 datasheet; a
//    GH200 superchip's 480 GB of LPDDR5X, NVIDIA GH200 datasheet): any offload needs it given (0 = not
//    given: infeasible, as host_memory_bandwidth is for the optimizer), and a point whose
//    host_memory_per_gpu_bytes exceeds it is infeasible, as Calculon refuses a second tier too small
//    (calculon/llm/llm.py _check_mem_caps: "Mem tier2 needs ... but only has ..."). The host's own
//    use of its memory (operating system, pinned staging buffers, the data loader) is not counted.
//  - rank_order (which groups share a node): the order of the tp, cp, ep, dp and pp ranks, innermost
//    first, as Megatron-Core's RankGenerator takes it (megatron/core/parallel_state.py, order
//    "tp-cp-ep-dp-pp" by default; NVIDIA Megatron-LM's --use-tp-pp-dp-mapping passes
//    order='tp-cp-ep-pp-dp', megatron/training/initialize.py): any of the 120 orders. A group's ranks
//    are the product of the degrees inside it apart (its stride); the dense layers' grid has ep = 1 and
//    Megatron-Core's expert grid the same order with cp = 1, ep and dp x cp / ep expert-DP ranks. A
//    group whose ranks span at most a node (stride x degree <= gpus_per_node) talks on NVLink (on the
//    torus, below), the others on the NIC: TP and CP rings and pipeline hops then run at the NIC's
//    rate, the EP all-to-all on the NIC, and the DP x CP all-reduce is hierarchical with a node's
//    share of each of its cp and dp groups (node / stride, at most the degree) inside and the rest
//    across. This is Calculon's choice of a network tier for each of TP, PP and DP (calculon-ai/
//    calculon calculon/llm/llm.py: tensor_par_net, pipeline_par_net, data_par_net; a tier must hold
//    the product of the degrees assigned to it, _check_network_assignments: "Network tier isn't big
//    enough"): the groups a node holds are the innermost ones, so putting them first expresses every
//    such assignment on dsx's two tiers, e.g. pp-tp-cp-ep-dp for the stages inside a node and TP
//    across nodes, dp-tp-cp-ep-pp for data parallelism inside the node; an order also places groups
//    that straddle the node, which Calculon cannot. A rank order rather than one tier per group keeps
//    one choice parameter and the ranks' strides, which the torus placement below needs. Every product
//    of the innermost degrees below the job must divide gpus_per_node or be a multiple of it (in both
//    grids; otherwise infeasible: a group would straddle nodes unevenly, as Calculon refuses a tier
//    that "isn't fully used"); a job of at most one node is never refused. Megatron-Core's two orders
//    give what they gave before this choice was widened: they keep the checks they had (tp and tp x cp
//    nest with the node) and count a node's share of a group that straddles nodes unevenly by the
//    whole blocks it holds. With pp inside dp a pipeline is a block of tp x cp x pp consecutive ranks: its
//    point-to-point transfers run on NVLink when such blocks tile a node (or the whole job is one
//    node), else on the NIC; the DP x CP all-reduce keeps the cp ranks inside the node and only the dp
//    ranks of whole blocks that fit it (node / (tp cp pp)), the expert-DP one node / (tp ep pp) ranks.
//    On a torus node a pipeline is a block of stride x pp chips whose stages are its blocks of stride
//    chips; a TP group of strided ranks is the peers of the blocks inside it (torus_strided_group);
//    the DP x CP all-reduce runs over one strided group when the in-node cp and dp ranks are adjacent in
//    the order, else over the product of the two strided groups (the cp ranks tp apart and the dp ranks
//    tp x cp x pp apart with pp inside dp) as one schedule whose rings share the links they cross
//    (engine/torus.hpp torus_product_reduce_scatter_s).
//  - pods, a third network tier (gpus_per_pod, dcn_bandwidth, dcn_latency): a pod is a domain of
//    gpus_per_pod GPUs, whole nodes, whose nodes reach each other on the NIC fabric above, and pods
//    reach each other on a slower data-centre network: TPU slices, each one ICI torus (a node here),
//    joined by DCN (Google Cloud TPU Multislice overview, docs.cloud.google.com/tpu/docs/
//    multislice-introduction: "TPU chips in different slices communicate by transferring data to
//    CPUs (hosts) which in turn transmit the data over the data-center network (DCN)"; TPU v5p: DCN
//    50 Gbps per chip, docs.cloud.google.com/tpu/docs/v5p), or a GPU cluster's scalable units joined
//    by a spine that is slower per GPU than the leaves inside a unit (NVIDIA DGX SuperPOD reference
//    architectures, docs.nvidia.com/dgx-superpod: scalable units of 32 DGX H100 or DGX B200 nodes;
//    the B200 architecture's table of larger SuperPODs lists as many leaf-spine and spine-core cables
//    as node-leaf cables, 4,096 each at 16 units, a non-blocking fat tree, so a reference SuperPOD is
//    one pod: the tier is for clusters whose spine is oversubscribed or whose units sit apart). gpus_per_pod 0
//    (the default) turns the tier off: every node on one fabric, as before. With it set, a job larger
//    than a pod needs dcn_bandwidth (one GPU's one-way share of the data-centre network) and
//    dcn_latency (the alpha of a step across it) given (0 = not given: infeasible, with the reason);
//    gpus_per_pod must be a multiple of gpus_per_node and every product of rank_order's innermost
//    degrees below the job must divide it or be a multiple of it (in both grids), else infeasible. A
//    group whose ranks span more than a pod (stride x degree > gpus_per_pod) runs on the data-centre
//    network: TP rings, pipeline hops, CP exchanges and EP all-to-alls at its rate (its hops the
//    slowest of the group's), and the DP x CP and expert-DP all-reduces as the 2D all-reduce of
//    engine/collectives.hpp cross_pod_all_reduce_s: the pod's share of the group reduce-scatters
//    inside the pod on its own two tiers, rings of 1 / (that share) of the gradients all-reduce
//    across pods on the data-centre network, and it all-gathers back. In Megatron-Core's default
//    order with pp = 1 the DP group is outermost, so only the gradients cross pods: data parallelism
//    across slices, everything else inside one, as MaxText recommends for multislice
//    (AI-Hypercomputer/maxtext, MaxText/configs/base.yml: dcn_data_parallelism the "recommended DCN
//    axis", dcn_tensor_parallelism "never recommended").
// Fixed here: one NIC per GPU, the NVLink alpha above, 2 PSUs per node.
#pragma once

#include "engine/solver.hpp"

namespace dsx {

class TrainingSolver final : public TabledSolver {
 public:
  enum Param : std::size_t {
    hardware,
    model,
    gpus,
    tp,
    pp,
    ep,
    micro_batch,
    global_batch,
    recompute,
    zero_stage,
    training_tokens,
    eta,
    fabric_bandwidth,
    overlap,
    pue,
    carbon_intensity_g_per_kwh,
    electricity_usd_per_kwh,
    wue_l_per_kwh,
    attention,
    virtual_stages,
    gpus_per_node,
    fabric_latency,
    oversubscription,
    straggler_slowdown,
    checkpoint_bandwidth,
    precision,
    optimizer,
    cp,
    sequence_parallel,
    finetune,
    lora_rank,
    attention_eta,
    memory_efficiency,
    memory_traffic,
    tp_overlap,
    offload,
    host_memory_bandwidth,
    torus_x,
    torus_y,
    torus_z,
    rank_order,
    host_memory_capacity,
    fp8_weight_cast,
    cp_comm,
    gpus_per_pod,
    dcn_bandwidth,
    dcn_latency,
    ep_all_to_all,
    etp,
    max_nodes_per_token,
    kParamCount
  };
  enum Metric : std::size_t {
    step_time_s,
    compute_s,
    bubble_s,
    tp_comm_s,
    pp_comm_s,
    ep_comm_s,
    dp_comm_s,
    bubble_fraction,
    scaling_efficiency,
    tokens_per_s,
    mfu,
    hfu,
    tflops_per_gpu,
    hardware_tflops_per_gpu,
    active_parameters,
    dp,
    microbatches,
    memory_per_gpu_bytes,
    weights_bytes,
    gradients_bytes,
    optimizer_bytes,
    activations_bytes,
    fleet_model_state_bytes_per_param,
    time_to_train_s,
    time_to_train_6pd_s,
    fleet_mtbf_s,
    checkpoint_interval_s,
    goodput,
    time_with_failures_s,
    gpu_power_w,
    energy_j,
    co2_kg,
    water_l,
    gpu_hour_cost_usd,
    cost_usd,
    cost_per_million_tokens_usd,
    tokens_per_s_per_gpu,
    checkpoint_bytes,
    checkpoint_s,
    cp_comm_s,
    trainable_parameters,
    memory_bound_s,
    optimizer_s,
    host_memory_per_gpu_bytes,
    offload_exposed_s,
    kMetricCount
  };
  enum Reason : std::uint8_t {
    not_a_transformer,
    tp_pp_do_not_divide_gpus,
    tp_and_node_do_not_nest,
    tp_must_divide_heads,
    pp_exceeds_layers,
    batch_not_divisible,
    exceeds_memory,
    ep_needs_moe,
    ep_must_divide_dp,
    ep_must_divide_experts,
    interleave_needs_microbatches,
    precision_unsupported,
    tp_pp_cp_do_not_divide_gpus,
    tp_cp_and_node_do_not_nest,
    cp_must_divide_sequence,
    ep_tp_needs_sequence_parallel,
    offload_needs_host_bandwidth,
    cp_needs_attention_only,
    torus_is_not_the_node,
    offload_needs_three_layers,
    offload_needs_host_capacity,
    exceeds_host_memory,
    rank_order_does_not_nest,
    pod_does_not_nest,
    pods_need_dcn,
    tp_must_divide_recurrent_channels,
    etp_one_needs_tp_inside_ep,
    hierarchical_all_to_all_uneven,
  };

  TrainingSolver();
  PointResult evaluate(const PointInputs& in, std::span<double> out) const override;
  // mfu and hfu of an fp8 run are fractions of the bf16 peak and reach at most fp8 peak / bf16 peak
  // (1 otherwise); tflops_per_gpu and hardware_tflops_per_gpu at most the training precision's peak.
  double metric_upper_bound(const PointInputs& in, std::size_t metric) const override;
};

}  // namespace dsx
