/*
 * Fuzzing YAML request bodies (Content-Type application/yaml) through the
 * API core in process: create and update, as json_body does for JSON (the
 * first document through YAMLToJSON, strict duplicate keys by
 * fieldValidation, then decoding, validation and the store).  Input:
 * "COLLECTION-PATH[?QUERY]\nBODY" (see fuzz_body()).
 */

#include "fuzz.h"


int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_body(data, size, "application/yaml");

    return 0;
}
