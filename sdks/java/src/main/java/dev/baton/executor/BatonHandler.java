package dev.baton.executor;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a public method {@code Object name(RunContext ctx)} (or {@code void}) as a handler;
 * {@link BatonExecutor#handlers(Object)} registers every marked method of an object, called on
 * that object (so a handler uses the services injected there, e.g. a Spring bean).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface BatonHandler {
  /** The handler name tasks refer to. */
  String value();

  /** A JSON schema of the params, as JSON text (a JSON object); empty: none. */
  String paramsSchema() default "";
}
