// test_memory: the paper's own accounting (method 4.4, 4.5) reproduced to the digits it prints.
#include "../analysis/memory.h"
#include "testutil.h"

static int digits(double x, double want, double unit) { return fabs(x - want) <= unit / 2 + 1e-12; }

int main(void) {
    stepq_memory_model qwen, kimi;
    CHECK(stepq_memory_paper_model(&qwen, "gdn-qwen-like") == 0 && stepq_memory_paper_model(&kimi, "kda-kimi-like") == 0,
          "paper models");
    double q6 = stepq_bits_paper(6, 32, 2304);
    CHECK(digits(q6, 6.361, 0.001) && digits(32 / q6, 5.03, 0.01), "Qwen 6-bit: %.4f bits, %.3fx", q6, 32 / q6);
    double qr = stepq_bits_reference(&qwen, 6, 32);
    CHECK(digits(qr, 6.358, 0.001), "Qwen reference layout %.4f, paper 6.358", qr);
    CHECK(digits(stepq_request_mib(&qwen, 32), 144, 1e-9), "FP32 per request %.3f MiB", stepq_request_mib(&qwen, 32));
    CHECK(digits(stepq_request_mib(&qwen, qr), 28.609, 0.001), "6-bit per request %.4f MiB, paper 28.609",
          stepq_request_mib(&qwen, qr));
    CHECK(digits(stepq_pool_gib(&qwen, 32, 64), 46.02, 0.01), "FP32 pool %.3f GiB, paper 46.02", stepq_pool_gib(&qwen, 32, 64));
    CHECK(digits(stepq_pool_gib(&qwen, qr, 64), 9.85, 0.01), "6-bit pool %.3f GiB, paper 9.85", stepq_pool_gib(&qwen, qr, 64));
    CHECK(stepq_pool_crossing(&qwen, 32) == 70, "FP32 pool passes the weights at %d, paper ~70",
          stepq_pool_crossing(&qwen, 32));
    double k6 = stepq_bits_paper(6, 512, 81920), k4 = stepq_bits_paper(4, 512, 81920);
    CHECK(digits(k6, 6.30, 0.01) && digits(k4, 4.30, 0.01) && digits(32 / k6, 5.08, 0.01) &&
              digits(32 / k4, 7.44, 0.01),
          "Kimi %.4f / %.4f bits, %.3fx / %.3fx", k6, k4, 32 / k6, 32 / k4);
    CHECK(digits(stepq_pool_gib(&kimi, 32, 512), 100.04, 0.01) && digits(stepq_pool_gib(&kimi, k6, 512), 19.70, 0.01),
          "Kimi pool at 512: %.3f -> %.3f GiB, paper 100.04 -> 19.70", stepq_pool_gib(&kimi, 32, 512),
          stepq_pool_gib(&kimi, k6, 512));
    return tu_finish("test_memory");
}
