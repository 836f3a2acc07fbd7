// replay.c: runs a fuzz target's LLVMFuzzerTestOneInput on files, without libFuzzer: the
// regression tests of the fuzz corpora (tests/fuzz/<target>/, every finding kept there), built
// with the compiler of the tree and its sanitizers.
//   replay_<target> FILE_OR_DIR...
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzzutil.h"

static int one(const char* path) {
    FILE* fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t* buf = malloc(n ? (size_t)n : 1);
    size_t got = fread(buf, 1, (size_t)n, fp);
    fclose(fp);
    LLVMFuzzerTestOneInput(buf, got);
    free(buf);
    return 0;
}

int main(int argc, char** argv) {
    int files = 0, rc = 0;
    for (int a = 1; a < argc; a++) {
        struct stat st;
        if (stat(argv[a], &st) != 0) {
            fprintf(stderr, "replay: no such file or directory %s\n", argv[a]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            rc |= one(argv[a]), files++;
            continue;
        }
        DIR* d = opendir(argv[a]);
        struct dirent* e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[a], e->d_name);
            rc |= one(p), files++;
        }
        if (d) closedir(d);
    }
    printf("replay: %d inputs, none crashed\n", files);
    return rc;
}
