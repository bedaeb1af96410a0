// The console's only script, and optional: it shows the "Copy" button beside a value shown once (the
// new signing secret) and copies the value. Without it the value is selected text to copy by hand.
for (const button of document.querySelectorAll("button[data-copy]")) {
  const field = document.getElementById(button.dataset.copy);
  if (!field || !navigator.clipboard) continue;
  const status = document.getElementById(`${button.dataset.copy}-status`);
  button.hidden = false;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(field.value);
      if (status) status.textContent = "Copied.";
    } catch {
      field.select();
      if (status) status.textContent = "Copying was refused: the secret is selected, copy it by hand.";
    }
  });
}
