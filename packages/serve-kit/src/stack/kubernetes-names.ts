import { checkString, refuse } from "../internal/validate.js";

// Kubernetes' own rules for the names these builders write, so `helm install` and `kubectl apply` do not
// refuse them later, far from the option that caused it.

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;
// A quantity as `kubectl` writes one: a number and an optional binary or decimal suffix.
const QUANTITY = /^([0-9]+(\.[0-9]+)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?$/;

/** A DNS label (RFC 1123): what Kubernetes requires of namespaces, Helm of release names, and pods of host names. */
export function checkDnsLabel(value: unknown, field: string, maxLength = 63): string {
  const name = checkString(value, field);
  if (!DNS_LABEL.test(name)) {
    refuse(
      field,
      "must be lower-case letters, digits and '-', starting and ending with a letter or digit",
      value,
    );
  }
  if (name.length > maxLength) refuse(field, `must be at most ${maxLength} characters`, value);
  return name;
}

/** A DNS subdomain (RFC 1123): what Kubernetes requires of most object names, Secrets and claims among them. */
export function checkDnsSubdomain(value: unknown, field: string): string {
  const name = checkString(value, field);
  if (!DNS_SUBDOMAIN.test(name) || name.length > 253) {
    refuse(
      field,
      "must be a DNS subdomain: lower-case letters, digits, '-' and '.', at most 253 characters",
      value,
    );
  }
  return name;
}

export function checkSecretKey(value: unknown, field: string): string {
  const key = checkString(value, field);
  if (!SECRET_KEY.test(key) || key.length > 253) {
    refuse(field, "must be a Secret key: letters, digits, '-', '_' and '.', at most 253 characters", value);
  }
  return key;
}

export function checkQuantity(value: unknown, field: string): string {
  const quantity = checkString(value, field);
  if (!QUANTITY.test(quantity) || /^[0.]+[A-Za-z]*$/.test(quantity)) {
    refuse(field, "must be a positive Kubernetes quantity such as 16Gi or 500M", value);
  }
  return quantity;
}

/**
 * A DNS label made from free text (a model id), for a default name: the last path segment, lower-cased,
 * other characters turned into '-', cut to `maxLength`. Never empty.
 */
export function dnsLabelFrom(text: string, maxLength: number): string {
  const segment = text.replace(/\/+$/, "").split("/").pop() ?? "";
  const label = segment
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, maxLength)
    .replace(/^-+|-+$/g, "");
  return label === "" ? "model".slice(0, maxLength) : label;
}
