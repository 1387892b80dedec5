/*
 * Fuzzing JSON request bodies through the API core in process: create and
 * update of any resource (decoding, strict field checks, defaults,
 * validation, admission, the store), as a client's POST and PUT with
 * Content-Type application/json.  Input: "COLLECTION-PATH\nBODY" (see
 * fuzz_body()).
 */

#include "fuzz.h"


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_body(data, size, "application/json");

    return 0;
}
