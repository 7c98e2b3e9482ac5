// The deep linking answer goes back to the platform at once; without JavaScript, by its button.
document.querySelectorAll("form[data-autosubmit]").forEach((form) => form.submit());
