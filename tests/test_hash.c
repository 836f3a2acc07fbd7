// test_hash: the provenance checksum of a file (stepq_file_xxh3, base/common.c) against an
// independent reference, the `xxhsum -H3` command line of the xxHash project (Debian package
// xxhash), on files of every length class of XXH3 (0, 1-3, 4-8, 9-16, 17-128, 129-240, longer),
// the 1 MiB block that stepq reads and a file of several blocks with a tail. Also: the published
// XXH3 64 of the empty input, a file hashed as a whole equals the bytes hashed in memory
// (stepq_xxh3 with seed 0), and a missing file is an error. Skipped (77) without xxhsum.
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/common.h"
#include "testutil.h"

// the 16 hex digits xxhsum prints for path (its output is "XXH3 (PATH) = HEX" in 0.8.1 and
// "XXH3_HEX  PATH" in later versions); 0 when it did not run
static int xxhsum(uint64_t* out, const char* path) {
    char cmd[4200], line[4400];
    snprintf(cmd, sizeof cmd, "xxhsum -H3 '%s' 2>/dev/null", path);
    FILE* p = popen(cmd, "r");
    if (!p) return 0;
    char* got = fgets(line, sizeof line, p);
    int rc = pclose(p);
    if (!got || rc != 0) return 0;
    // the hash is the one run of exactly 16 hex digits once the path is blanked out
    char* at = strstr(line, path);
    if (at) memset(at, ' ', strlen(path));
    for (char* c = line; *c;) {
        size_t n = 0;
        while (isxdigit((unsigned char)c[n])) n++;
        if (n == 16) {
            *out = strtoull(c, NULL, 16);
            return 1;
        }
        c += n ? n : 1;
    }
    return 0;
}

int main(int argc, char** argv) {
    if (system("xxhsum --version >/dev/null 2>&1") != 0) {
        printf("test_hash: xxhsum (Debian package xxhash) is not installed: skipped\n");
        return 77;
    }
    const char* dir = argc > 1 ? argv[1] : ".";
    mkdir(dir, 0755);
    const size_t block = (size_t)1 << 20;
    const size_t sizes[] = {0, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 1024, 4096 + 7,
                            block - 1, block, block + 1, 3 * block + 12345};
    const size_t n_sizes = sizeof sizes / sizeof *sizes;
    unsigned char* data = malloc(3 * block + 12345);
    uint64_t x = 0x9e3779b97f4a7c15ull;  // splitmix64: bytes with no pattern
    for (size_t i = 0; i < 3 * block + 12345; i++) {
        uint64_t z = (x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        data[i] = (unsigned char)(z ^ (z >> 31));
    }
    char path[4096];
    for (size_t i = 0; i < n_sizes; i++) {
        snprintf(path, sizeof path, "%s/bytes-%zu.bin", dir, sizes[i]);
        FILE* fp = fopen(path, "wb");
        CHECK(fp && fwrite(data, 1, sizes[i], fp) == sizes[i] && fclose(fp) == 0, "cannot write %s", path);
        uint64_t ours = 0, ref = 0;
        CHECK(stepq_file_xxh3(&ours, path) == STEPQ_OK, "%s not hashed", path);
        CHECK(xxhsum(&ref, path), "xxhsum -H3 %s gave no hash", path);
        CHECK(ours == ref, "%zu bytes: stepq %016llx, xxhsum %016llx", sizes[i], (unsigned long long)ours,
              (unsigned long long)ref);
        CHECK(stepq_xxh3(0, data, sizes[i]) == ours, "%zu bytes: in memory %016llx, as a file %016llx", sizes[i],
              (unsigned long long)stepq_xxh3(0, data, sizes[i]), (unsigned long long)ours);
        if (sizes[i] == 0)  // the xxHash project's test vector for the empty input, seed 0
            CHECK(ours == 0x2D06800538D394C2ull, "empty file: %016llx", (unsigned long long)ours);
        remove(path);
    }
    // a seed changes the hash (the keys chain their parts through it)
    CHECK(stepq_xxh3(1, data, 100) != stepq_xxh3(0, data, 100), "the seed is ignored");
    free(data);
    uint64_t h = 42;
    snprintf(path, sizeof path, "%s/no-such-file.bin", dir);
    remove(path);
    fprintf(stderr, "(an error naming %s is expected next)\n", path);
    CHECK(stepq_file_xxh3(&h, path) == STEPQ_ERR && h == 42, "a missing file hashed");
    return tu_finish("test_hash");
}
