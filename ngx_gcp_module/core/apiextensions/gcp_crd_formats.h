
/*
 * String formats of CRD schemas: the ones kube-apiserver 1.32 validates
 * (apiextensions-apiserver's supported formats, all registered in
 * kube-openapi's strfmt.Default), with their checks:
 *
 *   bsonobjectid  24 hexadecimal digits
 *   uri           net/url.ParseRequestURI succeeds
 *   email         net/mail.ParseAddress finds an address
 *   hostname      the RFC 1034 pattern of strfmt (letters and symbols of
 *                 any script), at most 255 bytes, labels of 63 at most
 *   ipv4          k8s.io/utils/net.ParseIPSloppy (leading zeros allowed,
 *                 "::ffff:1.2.3.4" too: it contains a dot)
 *   ipv6          net.ParseIP and a ':'
 *   cidr          ParseCIDRSloppy
 *   mac           net.ParseMAC (6, 8 or 20 octets, ':' '-' or '.' forms)
 *   uuid uuid3 uuid4 uuid5   strfmt's patterns (hyphens optional)
 *   isbn isbn10 isbn13       govalidator's checksums
 *   creditcard    govalidator's issuer pattern and Luhn checksum
 *   ssn           ddd-dd-dddd, '-' or ' ' (11 characters)
 *   hexcolor      #?rgb or #?rrggbb
 *   rgbcolor      rgb(r, g, b) with 0-255
 *   byte          padded standard base64 of at least one group
 *   password      anything
 *   date          time.Parse("2006-01-02")
 *   datetime      date "t" hh:mm:ss(.frac)?(z|±hh:mm), case-insensitive
 *   duration      time.ParseDuration, or strfmt's "3 days 2h" form
 *
 * Format names are normalized as strfmt does (every '-' removed:
 * "date-time" is datetime).  Any other format is not validated (as
 * kube-apiserver strips it from the schema before validating).
 */

#ifndef _GCP_CRD_FORMATS_H_INCLUDED_
#define _GCP_CRD_FORMATS_H_INCLUDED_


#include "gcp_core.h"
#include "gcp_crd_regex.h"


typedef enum {
    GCP_CRD_FMT_NONE = 0,
    GCP_CRD_FMT_BSONOBJECTID,
    GCP_CRD_FMT_URI,
    GCP_CRD_FMT_EMAIL,
    GCP_CRD_FMT_HOSTNAME,
    GCP_CRD_FMT_IPV4,
    GCP_CRD_FMT_IPV6,
    GCP_CRD_FMT_CIDR,
    GCP_CRD_FMT_MAC,
    GCP_CRD_FMT_UUID,
    GCP_CRD_FMT_UUID3,
    GCP_CRD_FMT_UUID4,
    GCP_CRD_FMT_UUID5,
    GCP_CRD_FMT_ISBN,
    GCP_CRD_FMT_ISBN10,
    GCP_CRD_FMT_ISBN13,
    GCP_CRD_FMT_CREDITCARD,
    GCP_CRD_FMT_SSN,
    GCP_CRD_FMT_HEXCOLOR,
    GCP_CRD_FMT_RGBCOLOR,
    GCP_CRD_FMT_BYTE,
    GCP_CRD_FMT_PASSWORD,
    GCP_CRD_FMT_DATE,
    GCP_CRD_FMT_DATETIME,
    GCP_CRD_FMT_DURATION
} gcp_crd_format_t;


/* Returns the validated format a name stands for, or GCP_CRD_FMT_NONE. */
gcp_crd_format_t gcp_crd_format_lookup(const char *name, size_t len);

/*
 * Returns the compiled hostname pattern (released with the arena), or
 * NULL when out of memory.
 */
gcp_crd_regex_t *gcp_crd_format_hostname_re(gcp_arena_t *a);

/*
 * Returns 1 when s (len bytes) is valid for format f.  hostname_re is
 * what gcp_crd_format_hostname_re() gave (needed for hostname only); m
 * is match scratch space (may be NULL: then hostname never matches).
 */
int gcp_crd_format_check(gcp_crd_format_t f, const char *s, size_t len,
    const gcp_crd_regex_t *hostname_re, gcp_crd_match_t *m);


/* the checks of gcp_crd_formats_net.c (Go's parsers) */
int gcp_crd_is_ip(const char *s, size_t len, int sloppy, int *is_v4);
int gcp_crd_is_cidr(const char *s, size_t len);
int gcp_crd_is_mac(const char *s, size_t len);
int gcp_crd_is_request_uri(const char *s, size_t len);
int gcp_crd_is_email(const char *s, size_t len);


#endif /* _GCP_CRD_FORMATS_H_INCLUDED_ */
