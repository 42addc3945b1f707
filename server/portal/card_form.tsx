/** A card with a heading and one POST form under it: how a page offers "make a new …". */
import type { Child, FC } from "hono/jsx";

export const CardForm: FC<
  { id: string; title: string; action: string; csrf: string; children?: Child }
> = ({ id, title, action, csrf, children }) => (
  <section class="card" aria-labelledby={`${id}-h`}>
    <h2 id={`${id}-h`}>{title}</h2>
    <form method="post" action={action} class="grid">
      <input type="hidden" name="_csrf" value={csrf} />
      {children}
    </form>
  </section>
);
