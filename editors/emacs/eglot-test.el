;;; eglot-test.el --- agentls in Emacs eglot, headless  -*- lexical-binding: t -*-

;; Run by eglot_test.go: emacs --batch -q -l eglot-test.el (no init file;
;; the site files, which load Debian's elpa-eglot). Emacs's own
;; eglot with the configuration of docs/editors.md starts agentls for
;; main.py, a code action starts a run, and eglot's own handlers answer
;; the server. The questions eglot asks through completing-read and
;; y-or-n-p are answered as $AGENTLS_TEST_PLAN says, and recorded. What
;; the test saw is written as JSON to $AGENTLS_TEST_OUT.

(require 'cl-lib)
(require 'json)
(require 'eglot)

(defvar agentls-test-plan (json-parse-string (getenv "AGENTLS_TEST_PLAN") :object-type 'plist :array-type 'list))
(defvar agentls-test-answers (plist-get agentls-test-plan :answers))
(defvar agentls-test-questions nil "The server's questions: (message . actions).")
(defvar agentls-test-confirms nil "eglot's own y-or-n-p prompts.")
(defvar agentls-test-messages nil "window/showMessage texts.")
(defvar agentls-test-finished nil "The run's last log line, once it came.")

(defun agentls-test-events ()
  "The end of eglot's events buffer (the JSON-RPC traffic), for failures."
  (let ((server (ignore-errors (with-current-buffer (get-file-buffer "main.py") (eglot-current-server)))))
    (if (not server)
        ""
      (with-current-buffer (jsonrpc-events-buffer server)
        (buffer-substring-no-properties (max (point-min) (- (point-max) 6000)) (point-max))))))

(defun agentls-test-fail (fmt &rest args)
  (let ((msg (concat (apply #'format fmt args) "\neglot's events:\n" (agentls-test-events))))
    (with-temp-file (getenv "AGENTLS_TEST_OUT")
      (insert (json-encode `((ok . :json-false) (error . ,msg)))))
    (kill-emacs 1)))

;; The configuration of docs/editors.md.
(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs
               `((python-mode python-ts-mode) . (,(getenv "AGENTLS_BIN") "serve")))
  (setq eglot-confirm-server-initiated-edits nil))
(setq-default eglot-workspace-configuration
              '(:agentls (:confirm "each" :maxTurns 50)))

;; The user's answers.
(defun agentls-test-completing-read (orig prompt collection &rest args)
  (cond
   ((string-prefix-p "[eglot] Pick an action" prompt)
    (let* ((want (plist-get agentls-test-plan :action))
           (hit (cl-find-if (lambda (c) (string-prefix-p want (car c))) collection)))
      (unless hit
        (agentls-test-fail "no code action %s in %S" want (mapcar #'car collection)))
      (car hit)))
   ((string-match-p "Server reports" prompt)
    (let ((answer (pop agentls-test-answers)))
      (push (cons prompt collection) agentls-test-questions)
      (unless (member answer collection)
        (agentls-test-fail "the question %S offers no %s" prompt answer))
      answer))
   (t (apply orig prompt collection args))))
(advice-add 'completing-read :around #'agentls-test-completing-read)

(defun agentls-test-y-or-n-p (prompt)
  (push prompt agentls-test-confirms)
  (equal (pop agentls-test-answers) "y"))
(advice-add 'y-or-n-p :override #'agentls-test-y-or-n-p)

;; What the server says.
(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql window/showMessage)) &key _type message)
  (push message agentls-test-messages))
(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql window/logMessage)) &key _type message)
  (when (string-match-p ": finished: " message)
    (setq agentls-test-finished message)))

(defun agentls-test-nudge ()
  "Parse what the server sent and eglot left unread. jsonrpc 1.0.14 (Emacs
28) answers a synchronous request by throwing out of the process filter:
messages that came in the same read (the server's question, right after
its answer to agentls.run when the model answers at once) wait for the
next output, and the server waits for the answer to that question. A
real model takes long enough for them to come in another read."
  (let ((server (ignore-errors (with-current-buffer (get-file-buffer "main.py") (eglot-current-server)))))
    (when server
      (jsonrpc--process-filter (jsonrpc--process server) ""))))

(defun agentls-test-wait (what pred seconds)
  (let ((deadline (+ (float-time) seconds)))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (agentls-test-fail "timed out waiting for %s" what))
      (accept-process-output nil 0.05)
      (agentls-test-nudge))))

(condition-case err
    (progn
      (find-file "main.py")
      (let ((buf (current-buffer)))
        (apply #'eglot (eglot--guess-contact))
        (agentls-test-wait "eglot to manage main.py"
                           (lambda () (with-current-buffer buf
                                        (and (eglot-current-server) eglot--managed-mode)))
                           20)
        ;; The code action on lines L1..L2, picked as a user would.
        (let* ((lines (plist-get agentls-test-plan :lines))
               (beg (save-excursion (goto-char (point-min)) (forward-line (1- (nth 0 lines))) (point)))
               (end (save-excursion (goto-char (point-min)) (forward-line (1- (nth 1 lines))) (line-end-position)))
               (last-nonmenu-event 13))
          (eglot-code-actions beg end nil t))
        (agentls-test-wait "the run to finish" (lambda () agentls-test-finished) 60)
        (with-temp-file (getenv "AGENTLS_TEST_OUT")
          (insert (json-encode
                   `((ok . t)
                     (questions . ,(vconcat (mapcar (lambda (q) `((message . ,(car q)) (actions . ,(vconcat (cdr q)))))
                                                    (reverse agentls-test-questions))))
                     (confirms . ,(vconcat (reverse agentls-test-confirms)))
                     (messages . ,(vconcat (reverse agentls-test-messages)))
                     (left . ,(vconcat agentls-test-answers))
                     (buffer . ,(with-current-buffer buf (buffer-string)))
                     (modified . ,(if (buffer-modified-p buf) t :json-false))
                     (files . ,(or (delq nil (mapcar (lambda (b)
                                                       (and (buffer-file-name b)
                                                            (cons (intern (file-name-nondirectory (buffer-file-name b)))
                                                                  (with-current-buffer b (buffer-string)))))
                                                     (buffer-list)))
                                   (make-hash-table))))))))
      (kill-emacs 0))
  (error (agentls-test-fail "%S" err)))

;;; eglot-test.el ends here
