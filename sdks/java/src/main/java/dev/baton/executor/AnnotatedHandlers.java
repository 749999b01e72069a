package dev.baton.executor;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The {@link BatonHandler} methods of an object, as handlers called on it. */
final class AnnotatedHandlers {
  private AnnotatedHandlers() {}

  /**
   * The marks are looked for up the class hierarchy: a framework's proxy (Spring's CGLIB subclass
   * of a {@code @Transactional} bean) overrides the methods without their annotations. The method
   * found is called on the bean, so the proxy's override runs. A public method of a class that is
   * not public (a package-private {@code @Component}) is made accessible: reflection from this
   * package may not call it otherwise.
   */
  static List<TaskHandler> of(Object bean) {
    List<TaskHandler> found = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (Class<?> type = bean.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
      for (Method method : type.getDeclaredMethods()) {
        BatonHandler mark = method.getAnnotation(BatonHandler.class);
        if (mark == null || !seen.add(method.getName())) continue;
        String where = type.getSimpleName() + "." + method.getName() + "()";
        if (!Modifier.isPublic(method.getModifiers()) || Modifier.isStatic(method.getModifiers())
            || method.getParameterCount() != 1 || method.getParameterTypes()[0] != RunContext.class) {
          throw new IllegalArgumentException("@BatonHandler " + where + ": must be a public instance method taking one RunContext");
        }
        if (!method.trySetAccessible()) {
          throw new IllegalArgumentException("@BatonHandler " + where + ": not accessible to the SDK (make " + type.getName()
              + " public, or open its package to dev.baton.executor)");
        }
        Handler call = ctx -> {
          try {
            return method.invoke(bean, ctx);
          } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) throw ex;
            if (cause instanceof Error err) throw err;
            throw e;
          }
        };
        found.add(new TaskHandler(mark.value(), call, TaskHandler.schemaObject(mark.value(), mark.paramsSchema())));
      }
    }
    if (found.isEmpty()) throw new IllegalArgumentException(bean.getClass().getName() + " has no public @BatonHandler method");
    return found;
  }
}
