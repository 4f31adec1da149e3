#pragma once

// The feed-forward activations, kept apart from modelconfig.h (Qt) so that the CPU kernels (core/kernels),
// which must not include Qt, can name them.

namespace attnscope {

enum class Activation { GeluErf, GeluTanh, Relu, Silu };

} // namespace attnscope
