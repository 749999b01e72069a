package dev.baton.executor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;

import dev.baton.executor.beans.HandlerBeans;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.Test;

/** {@code handlers(bean)}: the @BatonHandler methods of an application's bean, called on it. */
public class AnnotatedHandlersTest {
  private static List<TaskHandler> sorted(Object bean) {
    List<TaskHandler> handlers = new ArrayList<>(AnnotatedHandlers.of(bean));
    handlers.sort(Comparator.comparing(TaskHandler::name));
    return handlers;
  }

  @Test
  public void callsThePublicMethodsOfAPackagePrivateClassOfAnotherPackage() throws Exception {
    List<String> calls = new ArrayList<>();
    List<TaskHandler> handlers = sorted(HandlerBeans.jobs(calls));
    assertEquals(List.of("hello", "quiet"), handlers.stream().map(TaskHandler::name).toList());
    assertEquals("hi", handlers.get(0).handler().run(null));
    assertNull(handlers.get(1).handler().run(null));
    assertEquals("object", handlers.get(1).paramsSchema().get("type").asText());
    assertEquals(List.of("hello", "quiet"), calls);
  }

  @Test
  public void findsTheMarksOfAProxysSuperclassAndCallsTheProxy() throws Exception {
    List<String> calls = new ArrayList<>();
    List<TaskHandler> handlers = sorted(HandlerBeans.proxiedJobs(calls));
    assertEquals(List.of("hello", "quiet"), handlers.stream().map(TaskHandler::name).toList());
    assertEquals("hi", handlers.get(0).handler().run(null));
    assertEquals(List.of("proxy", "hello"), calls);
  }

  @Test
  public void refusesABeanWithoutHandlers() {
    assertThrows(IllegalArgumentException.class, () -> AnnotatedHandlers.of(new Object()));
  }
}
