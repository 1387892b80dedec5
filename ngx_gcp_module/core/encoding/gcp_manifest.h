
/*
 * Manifest files read as kubectl reads "-f FILE" (k8s.io/cli-runtime's
 * resource builder with k8s.io/apimachinery's YAMLOrJSONDecoder): the
 * objects of a file of YAML or JSON, in order, for bootstrap manifests.
 *
 *   - the bytes are decoded as kubectl's reader does: a UTF-8 byte order
 *     mark is dropped, UTF-16 with a byte order mark is converted, bytes
 *     that are not UTF-8 become U+FFFD;
 *   - a file whose first non-blank character is '{' is a stream of JSON
 *     values; any other file is YAML, cut into documents at the lines
 *     that start with "---" (only blanks or a comment may follow; anything
 *     else is kubectl's "invalid Yaml document separator" and ends the
 *     file), every line ending in "\n" as kubectl's line reader leaves it;
 *     each document is read as kube-apiserver reads a YAML body
 *     (gcp_yaml_parse.h), errors and their line numbers counted from the
 *     document's first line, as kubectl's are;
 *   - empty documents and null are skipped; a value that is not an object,
 *     or has no kind or no apiVersion, is an error of its document;
 *   - an object with an "items" key is a list (kubectl's rule, kind: List
 *     or any FooList): its items are returned instead, in kubectl's order
 *     (the items of a list inside a list after the outer list's other
 *     items), an item without kind and apiVersion getting the list's kind
 *     without "List" and its apiVersion.
 *
 * Unlike kubectl, a bad document does not stop the file: the documents
 * after it are read (the JSON syntax errors and the bad separators, after
 * which the rest cannot be cut, do stop it).
 */

#ifndef _GCP_MANIFEST_H_INCLUDED_
#define _GCP_MANIFEST_H_INCLUDED_


#include <sys/types.h>
#include <jansson.h>

#include "gcp_core.h"


typedef struct {
    json_t       *obj;          /* the object, or NULL with msg */
    const char   *msg;          /* NULL, or why the document was not read */
    size_t        doc;          /* 0-based: the document in the file */
    size_t        line;         /* 1-based: the line it starts on */
    ssize_t       item;         /* its place among a list's objects, or -1 */
} gcp_manifest_obj_t;


/*
 * Reads the len bytes of a manifest file.  Returns GCP_OK with *objs (n of
 * them: objects and errors, in file order) in arena memory, the objects'
 * release registered on the arena (json_incref() one to keep it longer),
 * the messages arena strings; GCP_ENOMEM when memory runs out.
 */
int gcp_manifest_read(gcp_arena_t *a, const char *data, size_t len,
    gcp_manifest_obj_t **objs, size_t *n);


#endif /* _GCP_MANIFEST_H_INCLUDED_ */
