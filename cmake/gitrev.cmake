# Writes stepq_version.h with the current git revision (and the compiler and flags), touching it only when it changes,
# so every build records the revision it was built from without forcing a rebuild.
execute_process(COMMAND git describe --always --dirty --abbrev=12
                WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE rev ERROR_QUIET
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rev)
  set(rev "unknown (not a git checkout)")
endif()
string(STRIP "${FLAGS}" FLAGS)
set(text "#define STEPQ_GIT_REVISION \"${rev}\"\n#define STEPQ_VERSION \"${VERSION}\"\n#define STEPQ_COMPILER \"${COMPILER}\"\n#define STEPQ_BUILD_FLAGS \"${FLAGS}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
