package dev.baton.executor;

/** Marks an exception of your own as "retrying cannot help" (as {@link NonRetryableException} is). */
public interface NonRetryable {}
