// Texts of the kinds a project holds, for test/tokens.test.ts: code in the common styles (tab-indented C, a header of
// hex constants, Go as gofmt writes it, Python), English prose, Russian, and Chinese in both scripts. Written for the
// test, in the style of real projects.

export const tabIndentedC = `/*
 * Walk the queue and hand each request to its device, dropping the lock while the driver works.
 */
static int queue_dispatch(struct request_queue *q, unsigned int budget)
{
	struct request *rq, *next;
	unsigned long flags;
	int dispatched = 0;

	spin_lock_irqsave(&q->queue_lock, flags);
	list_for_each_entry_safe(rq, next, &q->pending, queuelist) {
		if (dispatched >= budget)
			break;
		if (blk_rq_is_passthrough(rq) && !q->mq_ops->queue_rq)
			continue;
		list_del_init(&rq->queuelist);
		spin_unlock_irqrestore(&q->queue_lock, flags);
		switch (q->mq_ops->queue_rq(q->hctx, rq)) {
		case BLK_STS_OK:
			dispatched++;
			break;
		case BLK_STS_RESOURCE:
		case BLK_STS_DEV_RESOURCE:
			blk_mq_requeue_request(rq, false);
			goto out;
		default:
			blk_mq_end_request(rq, BLK_STS_IOERR);
			break;
		}
		spin_lock_irqsave(&q->queue_lock, flags);
	}
	spin_unlock_irqrestore(&q->queue_lock, flags);
out:
	return dispatched;
}
`;

export const hexHeader = `#define E1000_CTRL	0x00000	/* Device Control - RW */
#define E1000_STATUS	0x00008	/* Device Status - RO */
#define E1000_EECD	0x00010	/* EEPROM/Flash Control - RW */
#define E1000_EERD	0x00014	/* EEPROM Read - RW */
#define E1000_CTRL_EXT	0x00018	/* Extended Device Control - RW */
#define E1000_MDIC	0x00020	/* MDI Control - RW */
#define E1000_FCAL	0x00028	/* Flow Control Address Low - RW */
#define E1000_FCAH	0x0002C	/* Flow Control Address High -RW */
#define E1000_ICR	0x000C0	/* Interrupt Cause Read - R/clr */
#define E1000_ITR	0x000C4	/* Interrupt Throttling Rate - RW */
#define E1000_IMS	0x000D0	/* Interrupt Mask Set - RW */
#define E1000_RCTL_EN		0x00000002	/* enable */
#define E1000_RCTL_SBP		0x00000004	/* store bad packet */
#define E1000_RCTL_SZ_2048	0x00000000	/* rx buffer size 2048 */
static const u16 e1000_igp_cable_length_table[] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 10, 10, 10, 10, 10, 10, 20, 20,
	20, 20, 20, 25, 25, 25, 25, 25, 25, 25, 30, 30, 30, 30, 40, 40, 40, 40, 40, 40, 40, 40, 40, 50, 50, 50, 50,
};
`;

export const go = `package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Fetch copies the object at url into w, retrying a failed request up to three times with a growing pause.
func (c *Client) Fetch(ctx context.Context, url string, w io.Writer) (int64, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return 0, fmt.Errorf("mirror: bad request for %q: %w", url, err)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			lastErr = err
			time.Sleep(time.Duration(attempt+1) * 250 * time.Millisecond)
			continue
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, &StatusError{Code: resp.StatusCode, URL: url}
		}
		return io.Copy(w, resp.Body)
	}
	return 0, errors.Join(ErrUnavailable, lastErr)
}
`;

export const python = `class LineCache:
    """Keeps the lines of recently read files, dropping the least recently used past a budget."""

    def __init__(self, budget: int = 1 << 20) -> None:
        self.budget = budget
        self.used = 0
        self.files: "OrderedDict[str, list[str]]" = OrderedDict()

    def lines(self, path: str) -> list[str]:
        if path in self.files:
            self.files.move_to_end(path)
            return self.files[path]
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
        self.used += sum(len(line) for line in lines)
        self.files[path] = lines
        while self.used > self.budget and len(self.files) > 1:
            _, dropped = self.files.popitem(last=False)
            self.used -= sum(len(line) for line in dropped)
        return lines
`;

export const englishProse = `The bridge remembers nothing, so every call carries everything: the instructions, the folder tree, the files
the user attached, a short reminder right before the question, and then each of the model's earlier answers with
the results of its requests. When the next message would not fit in the model's window, the results it has already
read give way first, oldest first, each to a one-line note that says how to ask for it again. The instructions, the
tree and the question never give way; when even they do not fit, nothing is sent, and the error says what to do.
`;

export const russianProse = `Мост ничего не помнит, поэтому каждый вызов несёт всё сразу: инструкции, дерево папки, приложенные файлы,
короткое напоминание прямо перед вопросом, а затем каждый прежний ответ модели с результатами её запросов. Когда
следующее сообщение не помещается в окно модели, первыми уступают место уже прочитанные результаты, начиная со
старых: каждый превращается в строку о том, как попросить его снова. Инструкции, дерево и вопрос не уступают никогда.
`;

export const simplifiedChinese = `桥接服务什么也不记得，所以每次调用都要带上全部内容：说明、文件夹树、用户附加的文件、问题之前的简短提醒，
以及模型之前的每一个回答和它所请求的结果。当下一条消息放不进模型的上下文窗口时，模型已经读过的结果最先让位，
从最旧的开始，每一个都换成一行说明，告诉模型如何再次请求。说明、目录树和问题永远不会让位。
`;

export const traditionalChinese = `橋接服務什麼也不記得，所以每次呼叫都要帶上全部內容：說明、資料夾樹、使用者附加的檔案、問題之前的簡短提醒，
以及模型之前的每一個回答和它所請求的結果。當下一則訊息放不進模型的上下文視窗時，模型已經讀過的結果最先讓位，
從最舊的開始，每一個都換成一行說明，告訴模型如何再次請求。說明、目錄樹和問題永遠不會讓位。
`;
