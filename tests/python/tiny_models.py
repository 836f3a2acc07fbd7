"""Tiny randomly initialised models built from transformers' own config classes: two delta-rule
layers of 128 x 128 heads and one attention layer (a cache needs one), vocabulary 256 (bytes).
initializer_range 0.5 keeps q and k far above l2norm's eps (1e-6 on sum x^2), as in a trained
model; at transformers' default, 0.02 (init=0.02), their normalised norms come out near 0.998
instead of 1, which stepq's reader accepts only because a capture records the eps (qk_norm_eps)."""
import torch

COMMON = dict(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=3, num_attention_heads=2,
              num_key_value_heads=1, initializer_range=0.5, tie_word_embeddings=False)


def qwen3_next(seed=0, init=0.5):
    from transformers import Qwen3NextConfig, Qwen3NextForCausalLM
    cfg = Qwen3NextConfig(**dict(COMMON, initializer_range=init), layer_types=["linear_attention", "linear_attention", "full_attention"],
                          linear_num_value_heads=2, linear_num_key_heads=1, linear_key_head_dim=128,
                          linear_value_head_dim=128, head_dim=32, num_experts=2, num_experts_per_tok=1,
                          moe_intermediate_size=32, shared_expert_intermediate_size=32)
    torch.manual_seed(seed)
    return Qwen3NextForCausalLM(cfg).eval()


def qwen3_5(seed=0, init=0.5):
    from transformers import Qwen3_5ForCausalLM, Qwen3_5TextConfig
    cfg = Qwen3_5TextConfig(**dict(COMMON, initializer_range=init), layer_types=["linear_attention", "full_attention", "linear_attention"],
                            linear_num_value_heads=2, linear_num_key_heads=2, linear_key_head_dim=128,
                            linear_value_head_dim=128, head_dim=32)
    torch.manual_seed(seed)
    return Qwen3_5ForCausalLM(cfg).eval()


def qwen3_5_moe(seed=0, init=0.5, dtype=None):
    """Qwen3.5's mixture-of-experts model (qwen3_5_moe_text): its delta-rule layers are the dense
    model's; dtype: the model's weights (save_pretrained writes the checkpoint in it)"""
    from transformers import Qwen3_5MoeForCausalLM, Qwen3_5MoeTextConfig
    cfg = Qwen3_5MoeTextConfig(**dict(COMMON, initializer_range=init),
                               layer_types=["linear_attention", "full_attention", "linear_attention"],
                               linear_num_value_heads=2, linear_num_key_heads=2, linear_key_head_dim=128,
                               linear_value_head_dim=128, head_dim=32, num_experts=2, num_experts_per_tok=1,
                               moe_intermediate_size=32, shared_expert_intermediate_size=32)
    torch.manual_seed(seed)
    m = Qwen3_5MoeForCausalLM(cfg).eval()
    return m if dtype is None else m.to(dtype)


def kimi_linear(seed=0, init=0.5):
    from transformers import KimiLinearConfig, KimiLinearForCausalLM
    cfg = KimiLinearConfig(**dict(COMMON, initializer_range=init), layer_types=["linear_attention", "linear_attention", "full_attention"],
                           mlp_layer_types=["dense", "dense", "dense"], linear_head_dim=128, linear_num_heads=2,
                           kv_lora_rank=16, qk_rope_head_dim=16, qk_nope_head_dim=16, v_head_dim=32,
                           moe_intermediate_size=32, num_local_experts=2, num_experts_per_tok=1,
                           pad_token_id=0, bos_token_id=1, eos_token_id=2)
    torch.manual_seed(seed)
    return KimiLinearForCausalLM(cfg).eval()


MODELS = {"qwen3_next": qwen3_next, "qwen3_5": qwen3_5, "kimi_linear": kimi_linear}
