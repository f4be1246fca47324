import { PASSWORD_MIN_LENGTH } from "@imagehub/domain";
import { Field } from "./field";

/** A new password typed twice, as every form that sets one asks for it. */
export function NewPasswordFields() {
  return (
    <>
      <Field label="New password" hint={`At least ${PASSWORD_MIN_LENGTH} characters.`}>
        <input
          name="password"
          type="password"
          autoComplete="new-password"
          minLength={PASSWORD_MIN_LENGTH}
          required
        />
      </Field>
      <Field label="The same password again">
        <input
          name="confirmation"
          type="password"
          autoComplete="new-password"
          minLength={PASSWORD_MIN_LENGTH}
          required
        />
      </Field>
    </>
  );
}

/** The new password of NewPasswordFields, or undefined (and the problem said) when the two differ. */
export function readNewPassword(form: FormData, problem: (message: string) => void): string | undefined {
  const password = String(form.get("password"));
  if (password === String(form.get("confirmation"))) return password;
  problem("The two passwords differ.");
  return undefined;
}
